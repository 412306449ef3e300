import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Records each call it wraps under a name, and adds `X-Wrapped-By: <name>` to the request.
struct NamedMiddleware: RequestMiddleware {
    let name: String
    let calls: CallRecorder<String>

    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        calls.record("\(name) \(request.url.path)")
        var request = request
        request.addHeader("X-Wrapped-By", name, secret: false)
        let response = try await next(request)
        calls.record("\(name) got \(response.statusCode)")
        return response
    }
}

/// A middleware made of a closure, for what a test needs.
struct ClosureMiddleware: RequestMiddleware {
    let body: @Sendable (OutgoingRequest, RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        try await body(request, next)
    }
}

/// Tells what it observes, and adds `X-Observed: <n>` to each request on the wire (n counts them).
final class RecordingObserver: RequestObserver {
    let events = CallRecorder<String>()
    private let sent = Counter()

    func willSend(_ request: inout OutgoingRequest) {
        let number = sent.increment()
        events.record("send \(request.url.path)")
        request.setHeader("X-Observed", "\(number)", secret: false)
    }
    func didRedirect(_ redirect: Redirect) { events.record("redirect \(redirect.statusCode) \(redirect.to.path)") }
    func willRetry(after outcome: RequestOutcome, attempt: Int, delay: Duration) { events.record("retry after \(attempt)") }
}

struct ObservingMiddleware: RequestMiddleware {
    let observer: RecordingObserver
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        try await next(request, observer: observer)
    }
}

/// A provider with middlewares of its own.
struct MiddlewareProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme = HTTPScheme.http
    var port: Int?
    var middlewares: [any RequestMiddleware] = []
    var authentication: Authentication?
    var retryPolicy: RetryPolicy?
    var areMocksEnabled: Bool?
}

@Suite("Middleware around a call", .sharing)
struct MiddlewareTests {
    @Test("The manager's, the provider's and the request's middlewares wrap the call in that order, once, around retries and redirects")
    func orderAndOncePerCall() async throws {
        try await withTestServer { server in
            let calls = CallRecorder<String>()
            let net = makeManager()
            net.middlewares = [NamedMiddleware(name: "manager", calls: calls)]
            let provider = MiddlewareProvider(port: server.port, middlewares: [NamedMiddleware(name: "provider", calls: calls)],
                                              retryPolicy: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(5)))
            let request = TestRequest<Echo>(provider, "/redirect/2")
            request.middlewares = [NamedMiddleware(name: "request", calls: calls)]
            let echo = try await net.perform(request)
            #expect(calls.values == ["manager /redirect/2", "provider /redirect/2", "request /redirect/2",
                                     "request got 200", "provider got 200", "manager got 200"])
            // What each middleware added went with every hop, in the order they added it.
            #expect(echo.headerList.filter { $0.first == "X-Wrapped-By" }.map { $0[1] } == ["manager", "provider", "request"])

            let retried = CallRecorder<String>()
            net.middlewares = [NamedMiddleware(name: "manager", calls: retried)]
            let attempt = try await net.perform(TestRequest<Attempt>(provider, "/flaky/oncePerCall?fail=2"))
            #expect(attempt.attempt == 3)
            #expect(retried.values == ["manager /flaky/oncePerCall", "manager got 200"])
        }
    }

    @Test("Network middlewares run once per request on the wire: each hop of a redirect and each attempt")
    func networkMiddlewaresPerHop() async throws {
        try await withTestServer { server in
            let calls = CallRecorder<String>()
            let net = makeManager()
            net.networkMiddlewares = [NamedMiddleware(name: "wire", calls: calls)]
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/redirect/2"))
            #expect(calls.values == ["wire /redirect/2", "wire got 302", "wire /redirect/1", "wire got 302",
                                     "wire /redirect/0", "wire got 302", "wire /echo", "wire got 200"])

            let attempts = CallRecorder<String>()
            net.networkMiddlewares = [NamedMiddleware(name: "wire", calls: attempts)]
            let provider = MiddlewareProvider(port: server.port, retryPolicy: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(5)))
            _ = try await net.perform(TestRequest<Attempt>(provider, "/flaky/perAttempt?fail=2"))
            #expect(attempts.values.filter { $0.hasPrefix("wire /") }.count == 3)
        }
    }

    @Test("Network middlewares never see a cache hit or a mock; the call's middlewares see both")
    func networkMiddlewaresNeverForCacheOrMocks() async throws {
        try await withTestServer { server in
            let wire = CallRecorder<String>()
            let call = CallRecorder<String>()
            let net = makeCachingManager()
            net.middlewares = [NamedMiddleware(name: "call", calls: call)]
            net.networkMiddlewares = [NamedMiddleware(name: "wire", calls: wire)]
            let path = "/response-headers?h=Cache-Control:max-age%3D60"
            _ = try await net.performWithResponse(TestRequest<JSONValue>(server.provider(), path))
            let (_, hit) = try await net.performWithResponse(TestRequest<JSONValue>(server.provider(), path))
            #expect(hit.cacheStatus == .hit)
            #expect(wire.values.filter { $0.hasPrefix("wire /") }.count == 1)
            #expect(call.values.filter { $0.hasPrefix("call /") }.count == 2)

            let mocks = try MockDirectory()
            defer { mocks.remove() }
            try mocks.write("Mocked", body: #"{"id": 7}"#)
            let mocked = makeManager(mocks: mocks.url)
            let mockWire = CallRecorder<String>()
            let mockCall = CallRecorder<String>()
            mocked.middlewares = [NamedMiddleware(name: "call", calls: mockCall)]
            mocked.networkMiddlewares = [NamedMiddleware(name: "wire", calls: mockWire)]
            struct Identified: Decodable, Sendable { let id: Int }
            let value = try await mocked.perform(MockedRequest<Identified>(server.provider(), "/anything", mock: "Mocked"))
            #expect(value.id == 7)
            #expect(mockWire.values.isEmpty)
            #expect(mockCall.values == ["call /anything", "call got 200"])
        }
    }

    @Test("A middleware that answers without calling next: nothing is sent, and its response is validated and decoded as usual")
    func shortCircuit() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.middlewares = [ClosureMiddleware { request, _ throws(NetworkError) in
                HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"attempt": 41}"#.utf8), url: request.url)
            }]
            let stubbed = try await net.perform(TestRequest<Attempt>(server.provider(), "/flaky/stub"))
            #expect(stubbed.attempt == 41)

            // A stubbed 503 fails validation as a server's would, with the status and body kept.
            net.middlewares = [ClosureMiddleware { request, _ throws(NetworkError) in
                HTTPResponse(statusCode: 503, body: Data("circuit open".utf8), url: request.url)
            }]
            let outcome = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<Attempt>(server.provider(), "/flaky/stub")) }
            #expect(outcome.error?.statusCode == 503)
            #expect(outcome.error?.context?.response.map { String(decoding: $0.body, as: UTF8.self) } == "circuit open")
            let received = try await server.receivedRequestCount()
            #expect(received == 0)
        }
    }

    @Test("A middleware may call next twice: the server gets two requests and the call returns what the middleware chose")
    func nextTwice() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.middlewares = [ClosureMiddleware { request, next throws(NetworkError) in
                _ = try await next(request)
                return try await next(request)
            }]
            let attempt = try await net.perform(TestRequest<Attempt>(server.provider(), "/flaky/twice"))
            #expect(attempt.attempt == 2)
            let received = try await server.receivedRequestCount()
            #expect(received == 2)
        }
    }

    @Test("A middleware's error is the call's error, as it threw it; a change that cannot be sent fails naming the middleware, nothing sent")
    func throwingAndInvalidChanges() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.middlewares = [ClosureMiddleware { request, _ throws(NetworkError) in
                throw .transport(.init(request: request.description, reason: "the circuit is open"))
            }]
            let thrown = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<Echo>(server.provider(), "/echo")) }
            #expect(thrown.error?.caseName == "transport")
            #expect(thrown.error?.context?.reason == "the circuit is open")

            struct HeaderInjector: RequestMiddleware {
                func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
                    var request = request
                    request.setHeader("X-Evil", "a\r\nInjected: yes", secret: false)
                    return try await next(request)
                }
            }
            net.middlewares = [HeaderInjector()]
            let refused = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<Echo>(server.provider(), "/echo")) }
            #expect(refused.error?.caseName == "invalidRequest")
            #expect(refused.error?.context?.reason?.contains("HeaderInjector") == true, "\(String(describing: refused.error))")
            let received = try await server.receivedRequestCount()
            #expect(received == 0)
        }
    }

    @Test("A response for another URL is decoded as usual and keeps the URL it names, redacted by the request's rules")
    func responseForAnotherURL() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        let elsewhere = URL(string: "https://elsewhere.example/v1?api_key=hunter2")!
        net.middlewares = [ClosureMiddleware { _, _ throws(NetworkError) in
            HTTPResponse(statusCode: 200, body: Data(#"{"attempt": 5}"#.utf8), url: elsewhere)
        }]
        let (value, response) = try await net.performWithResponse(TestRequest<Attempt>(server.provider(), "/echo"))
        #expect(value.attempt == 5)
        #expect(response.url == elsewhere)
        #expect(!"\(response)".contains("hunter2"))
    }

    @Test("A middleware that calls next 1,000 times in a row gets 1,000 answers; the call still ends once")
    func nextAThousandTimes() async throws {
        try await withTestServer { server in
            let net = makeManager()
            let answers = Counter()
            net.middlewares = [ClosureMiddleware { request, next throws(NetworkError) in
                var last: HTTPResponse?
                for _ in 0..<1_000 {
                    last = try await next(request)
                    answers.increment()
                }
                return last!
            }]
            _ = try await net.perform(TestRequest<JSONValue>(server.provider(), "/json"))
            #expect(answers.value == 1_000)
            let received = try await server.receivedRequestCount()
            #expect(received == 1_000)
        }
    }

    @Test("An observer is told each request on the wire, each redirect and each retry, and what it sets is sent on every hop")
    func observer() async throws {
        try await withTestServer { server in
            let observer = RecordingObserver()
            let net = makeManager()
            net.middlewares = [ObservingMiddleware(observer: observer)]
            let echo = try await net.perform(TestRequest<Echo>(server.provider(), "/redirect/0"))
            #expect(observer.events.values == ["send /redirect/0", "redirect 302 /echo", "send /echo"])
            #expect(echo.header("X-Observed") == "2")

            let retries = RecordingObserver()
            net.middlewares = [ObservingMiddleware(observer: retries)]
            let provider = MiddlewareProvider(port: server.port, retryPolicy: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(5)))
            _ = try await net.perform(TestRequest<Attempt>(provider, "/flaky/observed?fail=1"))
            #expect(retries.events.values == ["send /flaky/observed", "retry after 1", "send /flaky/observed"])
        }
    }

    @Test("A middleware's change survives a token refresh: the retry carries the fresh token and the change")
    func changeSurvivesRefresh() async throws {
        try await withTestServer { server in
            let source = BearerTokenSource(token: { "stale" }, refresh: { "fresh" })
            let provider = MiddlewareProvider(port: server.port, authentication: .bearer(source))
            let net = makeManager()
            let wire = CallRecorder<String>()
            net.middlewares = [ClosureMiddleware { request, next throws(NetworkError) in
                var request = request
                request.setHeader("X-Tenant", "acme", secret: false)
                return try await next(request)
            }]
            net.networkMiddlewares = [ClosureMiddleware { request, next throws(NetworkError) in
                wire.record("\(request.value(forHeader: "Authorization") ?? "-") \(request.value(forHeader: "X-Tenant") ?? "-")")
                return try await next(request)
            }]
            struct Authorized: Decodable, Sendable { let authorized: Bool }
            let authorized = try await net.perform(TestRequest<Authorized>(provider, "/auth/bearer?valid=fresh"))
            #expect(authorized.authorized)
            #expect(wire.values == ["Bearer stale acme", "Bearer fresh acme"])
        }
    }

    @Test("A middleware reads the origin a call goes to: the provider's, or a full URL's own")
    func origin() async throws {
        let server = try await TestServer.shared()
        let seen = CallRecorder<String>()
        let net = makeManager()
        net.middlewares = [ClosureMiddleware { request, next throws(NetworkError) in
            let origin = request.origin
            seen.record("\(origin.scheme)://\(origin.host):\(origin.port)")
            return try await next(request)
        }]
        _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
        final class Elsewhere: BaseRequest<Echo> {}
        _ = try await net.perform(Elsewhere(serviceProvider: TestProvider(host: "api.example", httpScheme: .https),
                                            url: URL(string: "http://localhost:\(server.port)/echo")!))
        #expect(seen.values == ["http://127.0.0.1:\(server.port)", "http://localhost:\(server.port)"])
    }

    @Test("A stream's middleware gets the head, then hears when the body ends (its size) or is cancelled")
    func streamBodyEnd() async throws {
        let server = try await TestServer.shared()
        let ends = CallRecorder<ResponseBodyEnd>()
        let net = makeManager()
        net.middlewares = [ClosureMiddleware { request, next throws(NetworkError) in
            let response = try await next(request)
            #expect(response.isStreaming)
            response.onBodyEnd { ends.record($0) }
            return response
        }]
        let stream = try await net.perform(StreamRequest<ByteStream>(server.provider(), "/bytes/300000"))
        #expect(ends.values.isEmpty)
        var received = 0
        for try await chunk in stream { received += chunk.count }
        #expect(received == 300_000)
        let ended = await ends.waitForCalls(count: 1, settle: .zero)
        #expect(ended.first?.byteCount == 300_000)
        #expect(ended.first.map { $0.error == nil } == true)

        let cancelled = CallRecorder<ResponseBodyEnd>()
        net.middlewares = [ClosureMiddleware { request, next throws(NetworkError) in
            let response = try await next(request)
            response.onBodyEnd { cancelled.record($0) }
            return response
        }]
        do {
            let dropped = try await net.perform(StreamRequest<ByteStream>(server.provider(), "/slow-bytes/100000?chunk=100&interval=0.05"))
            for try await _ in dropped { break }
        }
        let end = await cancelled.waitForCalls(count: 1, settle: .zero)
        #expect(end.first?.error?.caseName == "cancelled")

        // A complete response has ended when it is returned.
        let complete = CallRecorder<ResponseBodyEnd>()
        net.middlewares = [ClosureMiddleware { request, next throws(NetworkError) in
            let response = try await next(request)
            #expect(!response.isStreaming)
            response.onBodyEnd { complete.record($0) }
            return response
        }]
        let (_, response) = try await net.performWithResponse(TestRequest<JSONValue>(server.provider(), "/json"))
        #expect(complete.values.first?.byteCount == Int64(response.body.count))
    }
}
