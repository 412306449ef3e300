import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A stream goes the whole data path before it is handed over: status validation (a failing
/// status keeps at most 64 KB of the body, decoded as the error body type), redirects, 401 →
/// refresh → retry, the validator, the completion-handler API.
@Suite("Stream request path", .sharing)
struct StreamRequestPathTests {
    @Test("A failing status throws before any event, with at most 64 KB of its body read for the error, then the transfer stops")
    func failingStatus() async throws {
        try await withSSEServer { server in
            // A 64 MB error body (more than the stream's buffer and the sockets' hold, so it cannot
            // have arrived whole): only its first 64 KB is read.
            let outcome = await FaultOutcome { () throws(NetworkError) in
                try await makeManager().perform(StreamRequest<EventStream>(server.provider(), "/status/500?size=67108864"))
            }
            guard case .apiError(let context)? = outcome.error else {
                Issue.record("expected .apiError with status 500, got \(outcome)")
                return
            }
            #expect(context.statusCode == 500)
            #expect(context.response?.body.count == HTTPResponse.errorBodyLimit)
            // The connection is released, not left draining the megabyte.
            #expect(await waitForConnectionsToClose(toPort: server.port) != nil)
            let stats = try await server.statsOnceClosed()
            #expect(stats.open == 0)
        }
    }

    @Test("A failing status with an error body type: the error carries the decoded body and at most 64 KB of it")
    func errorBodyType() async throws {
        try await withSSEServer { server in
            let request = StreamRequest<EventStream>(server.provider(), "/status/503?size=200")
            request.errorBodyType = StreamErrorBody.self
            let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(request) }
            guard case .apiError(let context)? = outcome.error else {
                Issue.record("expected .apiError, got \(outcome)")
                return
            }
            #expect(outcome.error?.serverError(as: StreamErrorBody.self)?.error == "it failed with 503")
            #expect(context.response?.body.count == 200)

            let large = StreamRequest<EventStream>(server.provider(), "/status/404?size=300000")
            let second = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(large) }
            guard case .notFound(let notFound)? = second.error else {
                Issue.record("expected .notFound, got \(second)")
                return
            }
            #expect(notFound.response?.body.count == HTTPResponse.errorBodyLimit)
            #expect(notFound.response?.body.prefix(24) == Data(#"{"error": "it failed wit"#.utf8))
        }
    }

    @Test("A redirect is followed before the stream is handed over")
    func redirect() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(StreamRequest<EventStream>(server.provider(), "/redirect?to=/sse/ticks%3Fcount%3D3"))
            #expect(stream.response.statusCode == 200)
            #expect(await collect(stream).events.map(\.id) == ["1", "2", "3"])
        }
    }

    @Test("A 401 refreshes the token and retries once before the stream is handed over")
    func refreshAndRetry() async throws {
        try await withSSEServer { server in
            let refreshes = Counter()
            let source = BearerTokenSource(token: { "stale" }, refresh: { refreshes.increment(); return "fresh" })
            let provider = AuthProvider(port: server.port, authentication: .bearer(source))
            let stream = try await makeManager().perform(StreamRequest<EventStream>(provider, "/sse/auth?valid=fresh"))
            #expect(refreshes.value == 1)
            #expect(await collect(stream).events.count == 3)
        }
    }

    @Test("The request's validator sees the stream's response (status and headers) before it is handed over; refusing it stops the transfer")
    func validator() async throws {
        try await withSSEServer { server in
            struct NotAStream: Error {}
            // A body that never ends: only cancelling the transfer closes its connection.
            let request = StreamRequest<EventStream>(server.provider(), "/sse/forever?interval=10")
            request.validator = { response in
                if response.value(forHeader: "Content-Type") != "application/json" { throw NotAStream() }
            }
            let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(request) }
            #expect(outcome.error?.underlyingError is NotAStream, "\(outcome)")
            #expect(await waitForConnectionsToClose(toPort: server.port) != nil)
        }
    }

    @Test("performRequest's completion handler gets the stream, which is then read as usual")
    func completionHandler() async throws {
        try await withSSEServer { server in
            let calls = CallRecorder<Result<EventStream, NetworkError>>()
            makeManager().performRequest(request: StreamRequest<EventStream>(server.provider(), "/sse/ticks?count=4")) {
                calls.record($0)
            }
            let results = await calls.waitForCalls(settle: .milliseconds(50))
            // A missing call fails the test here rather than trapping on results[0] (which took the whole run down).
            try #require(results.count == 1)
            let stream = try results[0].get()
            #expect(await collect(stream).events.map(\.id) == ["1", "2", "3", "4"])
        }
    }

    @Test("A streaming response type decoded from a complete response (a custom parseAndValidate) streams its body")
    func completeResponse() async throws {
        let response = HTTPResponse(statusCode: 200, body: Data("data: a\n\ndata: b\n\n".utf8), url: URL(string: "http://x")!)
        let events = try response.decode(EventStream.self)
        #expect(await collect(events).events.map(\.data) == ["a", "b"])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(EventStream.self, from: Data("{}".utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ByteStream.self, from: Data("{}".utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONLines<Tick>.self, from: Data("{}".utf8)) }
    }
}

/// The JSON error body of sse_server.py's /status/<code>.
struct StreamErrorBody: ServerErrorBody {
    let error: String
    var serverMessage: String? { error }
}
