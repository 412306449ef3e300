import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Event streams that connect again (``ReconnectPolicy``) against sse_server.py's
/// `/sse/resumable`, which resumes after the request's `Last-Event-ID` and records every
/// request's: the loop sees every event once, in order, whatever cut the connection.
@Suite("Event stream reconnection", .sharing)
struct EventStreamReconnectionTests {
    struct ResumableLog: Decodable, Sendable {
        let lastEventIDs: [String?]
        let methods: [String]
        /// Each request's X-Mark headers, joined with ",".
        let marks: [String]
    }

    static func log(of server: SSEServer, key: String) async throws -> ResumableLog {
        try await makeManager().perform(TestRequest<ResumableLog>(server.provider(), "/sse/resumable/log?key=\(key)", timeout: 5))
    }

    static func request(_ server: SSEServer, _ query: String, policy: ReconnectPolicy? = .eventSource(maximumAttempts: 3),
                        method: HTTPMethod = .get, timeout: TimeInterval = TestTimeout.seconds(10)) -> StreamRequest<EventStream> {
        let request = StreamRequest<EventStream>(server.provider(), "/sse/resumable?\(query)", method: method, timeout: timeout)
        request.reconnectPolicy = policy
        return request
    }

    static func ticks(_ events: [ServerSentEvent]) throws -> [Int] {
        try events.map { try $0.decode(Tick.self).n }
    }

    @Test("A stream cut mid-body, reset, or ended cleanly resumes after the last id: every event once, in order",
          arguments: ["abandon", "reset", "clean"])
    func resumesWithoutDuplicatesOrGaps(end: String) async throws {
        try await withSSEServer { server in
            let key = "cut-\(end)"
            let stream = try await makeManager().perform(Self.request(server, "count=10&cut=3&end=\(end)&key=\(key)"))
            let (events, error) = await collect(stream)
            #expect(error == nil)
            #expect(try Self.ticks(events) == Array(1...10))
            #expect(events.map(\.id) == (1...10).map { "\($0)" })
            // Three cuts, then the clean end of the last connection reconnects too and gets 204.
            #expect(try await Self.log(of: server, key: key).lastEventIDs == [nil, "3", "6", "9", "10"])
        }
    }

    @Test("A server silent for longer than the timeout is reconnected to, resuming after the last id")
    func silenceReconnects() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(Self.request(server, "count=4&cut=2&end=stall&key=stall", timeout: 1))
            let (events, error) = await collect(stream)
            #expect(error == nil)
            #expect(try Self.ticks(events) == [1, 2, 3, 4])
            #expect(try await Self.log(of: server, key: "stall").lastEventIDs == [nil, "2", "4"])
        }
    }

    @Test("Without a policy a cut stream ends with the transport error, and is not sent again")
    func noPolicyNoReconnection() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(Self.request(server, "count=10&cut=3&key=none", policy: nil))
            let (events, error) = await collect(stream)
            #expect(try Self.ticks(events) == [1, 2, 3])
            guard case .transport? = error else { Issue.record("\(String(describing: error))"); return }
            #expect(try await Self.log(of: server, key: "none").lastEventIDs == [nil])
        }
    }

    @Test("A POST stream reconnects only when its policy says so")
    func postReconnectsOnlyWhenAllowed() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            let refused = try await net.perform(Self.request(server, "count=4&cut=2&key=post", method: .post))
            let (first, error) = await collect(refused)
            #expect(try Self.ticks(first) == [1, 2])
            guard case .transport? = error else { Issue.record("\(String(describing: error))"); return }
            let allowed = try await net.perform(Self.request(server, "count=4&cut=2&key=post2",
                                                             policy: .eventSource(reconnectsNonIdempotentMethods: true), method: .post))
            let (all, noError) = await collect(allowed)
            #expect(noError == nil)
            #expect(try Self.ticks(all) == [1, 2, 3, 4])
            #expect(try await Self.log(of: server, key: "post").methods == ["POST"])
            let log = try await Self.log(of: server, key: "post2")
            #expect(log.methods == ["POST", "POST", "POST"])
            #expect(log.lastEventIDs == [nil, "2", "4"])
        }
    }

    @Test("A reconnection answered with 204 ends the loop normally; with 500, the status error; with another Content-Type, .serialization")
    func reconnectionAnswersThatEndTheStream() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            let (ended, noError) = await collect(try await net.perform(Self.request(server, "count=10&cut=2&then=204&key=a")))
            #expect(noError == nil)
            #expect(try Self.ticks(ended) == [1, 2])

            let (failed, statusError) = await collect(try await net.perform(Self.request(server, "count=10&cut=2&then=status:500&key=b")))
            #expect(try Self.ticks(failed) == [1, 2])
            #expect(statusError?.statusCode == 500)
            guard case .apiError? = statusError else { Issue.record("\(String(describing: statusError))"); return }
            // Answered once, not in a loop: a status ends the stream.
            #expect(try await Self.log(of: server, key: "b").lastEventIDs == [nil, "2"])

            let (typed, typeError) = await collect(try await net.perform(Self.request(server, "count=10&cut=2&then=type:text/plain&key=c")))
            #expect(try Self.ticks(typed) == [1, 2])
            guard case .serialization(let context)? = typeError else { Issue.record("\(String(describing: typeError))"); return }
            #expect(context.reason?.contains("text/plain") == true)
        }
    }

    @Test("A first response that is 204 or not text/event-stream is never reconnected to, as EventSource fails the connection")
    func firstResponseThatEndsTheStream() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            let (none, noError) = await collect(try await net.perform(Self.request(server, "count=4&cut=2&first=204&key=first204")))
            #expect(none.isEmpty)
            #expect(noError == nil)
            #expect(try await Self.log(of: server, key: "first204").lastEventIDs == [nil])

            _ = await collect(try await net.perform(Self.request(server, "count=4&cut=2&first=type:text/plain&key=firsttype")))
            #expect(try await Self.log(of: server, key: "firsttype").lastEventIDs == [nil])
        }
    }

    @Test("Reconnections that fail forever end the stream after maximumAttempts with the last failure")
    func attemptsSpent() async throws {
        let server = try await offCooperativePool { try SSEServer.start() }
        let request = Self.request(server, "count=10&cut=2&retry=0&key=gone", policy: .eventSource(maximumAttempts: 3))
        let log = LogCollector()
        let stream = try await makeManager(log: log).perform(request)
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next()?.id == "1")
        #expect(try await iterator.next()?.id == "2")
        await offCooperativePool { server.stop() }  // nothing listens on the port any more
        do {
            let event = try await iterator.next()
            Issue.record("an event after the server stopped: \(String(describing: event))")
        } catch {
            guard case .reachability = error else { Issue.record("\(error)"); return }
        }
        #expect(try await iterator.next() == nil)
        let reconnections = log.all.filter { $0.contains("reconnecting in") }
        #expect(reconnections.count == 3, "\(reconnections)")
        #expect(reconnections.first?.contains("attempt 1 of 3") == true)
        #expect(reconnections.first?.contains("Last-Event-ID \"2\"") == true)
    }

    @Test("An id that cannot be a header value is never sent: the stream ends with .invalidRequest, nothing injected")
    func idWithControlCharacter() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(Self.request(server, "count=10&cut=3&badid=1&key=bad"))
            let (events, error) = await collect(stream)
            #expect(events.map(\.id) == ["1", "2", "x\u{01}y"])
            guard case .invalidRequest(let context)? = error else { Issue.record("\(String(describing: error))"); return }
            #expect(context.reason?.contains("Last-Event-ID") == true)
            #expect(try await Self.log(of: server, key: "bad").lastEventIDs == [nil])
        }
    }

    @Test("The stream's retry: sets the wait before reconnecting: 600 ms asked, at least 600 ms between the cut and the next event", .measuring)
    func retryIsHonoured() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(Self.request(server, "count=4&cut=2&retry=600&key=retry"))
            let (events, arrivals, error) = await collectTimed(stream)
            #expect(error == nil)
            #expect(try Self.ticks(events) == [1, 2, 3, 4])
            #expect(arrivals[2] - arrivals[1] >= .milliseconds(600), "\(gaps(arrivals))")
        }
    }

    @Test("retry: 0 waits the shortest delay, 100 ms, not zero", .measuring)
    func retryZeroIsFloored() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(Self.request(server, "count=4&cut=2&retry=0&key=zero"))
            let (events, arrivals, error) = await collectTimed(stream)
            #expect(error == nil)
            #expect(try Self.ticks(events) == [1, 2, 3, 4])
            #expect(arrivals[2] - arrivals[1] >= .milliseconds(100), "\(gaps(arrivals))")
        }
    }

    @Test("Cancelling the reading task while the stream waits to reconnect ends the loop at once with .cancelled", .measuring)
    func cancelWhileWaiting() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(Self.request(server, "count=10&cut=1&retry=60000&key=cancel"))
            let reader = Task { () -> (Int, NetworkError?) in
                var count = 0
                var iterator = stream.makeAsyncIterator()
                do throws(NetworkError) {
                    while try await iterator.next() != nil { count += 1 }
                    return (count, nil)
                } catch {
                    return (count, error)
                }
            }
            try await Task.sleep(for: .milliseconds(300))  // the event, the cut, then the 60 s wait
            let (result, elapsed) = await measure {
                reader.cancel()
                return await reader.value
            }
            #expect(result.0 == 1)
            guard case .cancelled? = result.1 else { Issue.record("\(String(describing: result.1))"); return }
            #expect(elapsed < .milliseconds(100), "\(elapsed)")
        }
    }

    @Test("Every reconnection is in the log: the wait, the attempt, Last-Event-ID, the response")
    func reconnectionsAreLogged() async throws {
        try await withSSEServer { server in
            let log = LogCollector()
            let stream = try await makeManager(log: log).perform(Self.request(server, "count=4&cut=2&key=log"))
            _ = await collect(stream)
            let text = log.text
            #expect(text.contains("the stream failed"))
            #expect(text.contains("reconnecting in 100 ms (attempt 1 of 3) with Last-Event-ID \"2\""))
            #expect(text.contains("Last-Event-ID: 2"))
            #expect(text.components(separatedBy: "← 200").count - 1 == 2, "\(text)")
            #expect(text.components(separatedBy: "← 204").count - 1 == 1, "\(text)")
        }
    }
}

/// A reconnection is part of the call, as an `EventSource` is one stream: the call's middlewares
/// wrap it once and hear its end after the last body; the network middlewares and the call's
/// observers see each reconnection's request on the wire, announced by `willRetry`.
@Suite("Event stream reconnection and middlewares", .sharing)
struct EventStreamReconnectionMiddlewareTests {
    /// A manager whose call middleware marks the request "call", registers `observer` and records
    /// the stream's end in `ends`; its network middleware marks each request on the wire "wire".
    static func manager(calls: CallRecorder<String>, ends: CallRecorder<ResponseBodyEnd>, observer: RecordingObserver) -> NetworkManager {
        let net = makeManager()
        net.middlewares = [ClosureMiddleware { request, next throws(NetworkError) in
            calls.record("call")
            var request = request
            request.addHeader("X-Mark", "call", secret: false)
            let response = try await next(request, observer: observer)
            response.onBodyEnd { ends.record($0) }
            return response
        }]
        net.networkMiddlewares = [ClosureMiddleware { request, next throws(NetworkError) in
            calls.record("wire")
            var request = request
            request.addHeader("X-Mark", "wire", secret: false)
            return try await next(request)
        }]
        return net
    }

    @Test("The call's middleware runs once and its onBodyEnd fires once, after the last body, with every body's bytes; each reconnection goes through the network middleware and the observer, with the call middleware's change")
    func oneCallManyConnections() async throws {
        try await withSSEServer { server in
            let (calls, ends, observer) = (CallRecorder<String>(), CallRecorder<ResponseBodyEnd>(), RecordingObserver())
            let net = Self.manager(calls: calls, ends: ends, observer: observer)
            let stream = try await net.perform(EventStreamReconnectionTests.request(server, "count=6&cut=2&key=mw"))
            var iterator = stream.makeAsyncIterator()
            var ticks: [Int] = []
            while let event = try await iterator.next() {
                ticks.append(try event.decode(Tick.self).n)
                // The first body has ended and a reconnection brought event 3: the stream has not.
                if ticks.count == 3 { #expect(ends.values.isEmpty) }
            }
            #expect(ticks == Array(1...6))
            // Connections after nothing, 2, 4 and 6 (answered 204): four requests on the wire, one call.
            #expect(calls.values == ["call", "wire", "wire", "wire", "wire"])
            let log = try await EventStreamReconnectionTests.log(of: server, key: "mw")
            #expect(log.lastEventIDs == [nil, "2", "4", "6"])
            #expect(log.marks == Array(repeating: "call,wire", count: 4))
            #expect(observer.events.values == ["send /sse/resumable", "retry after 1", "send /sse/resumable", "retry after 2",
                                               "send /sse/resumable", "retry after 3", "send /sse/resumable"])
            let end = try #require(ends.values.first)
            #expect(ends.values.count == 1)
            #expect(end.error == nil)
            // Six events' data lines at least: more than the first body carried.
            #expect(end.byteCount >= Int64(6 * "data: {\"n\":1}\n\n".utf8.count), "\(end.byteCount)")
        }
    }

    @Test("Leaving the loop after a reconnection tells the call's middleware once, with .cancelled; a status that ends the stream, with its error")
    func endsOnceWithTheStreamsEnding() async throws {
        try await withSSEServer { server in
            let (calls, ends, observer) = (CallRecorder<String>(), CallRecorder<ResponseBodyEnd>(), RecordingObserver())
            let net = Self.manager(calls: calls, ends: ends, observer: observer)
            for try await event in try await net.perform(EventStreamReconnectionTests.request(server, "count=10&cut=2&key=leave"))
                where try event.decode(Tick.self).n == 3 { break }
            #expect(ends.values.count == 1)
            guard case .cancelled? = ends.values.first?.error else { Issue.record("\(ends.values)"); return }

            let failing = CallRecorder<ResponseBodyEnd>()
            let failingNet = Self.manager(calls: calls, ends: failing, observer: observer)
            let (events, error) = await collect(try await failingNet.perform(
                EventStreamReconnectionTests.request(server, "count=10&cut=2&then=status:500&key=fail")))
            #expect(events.count == 2)
            #expect(error?.statusCode == 500)
            #expect(failing.values.count == 1)
            #expect(failing.values.first?.error?.statusCode == 500)
        }
    }
}

/// The policy's arithmetic: every wait within 100 ms … a minute, whatever a server or a caller asks.
@Suite("Reconnect policy", .sharing)
struct ReconnectPolicyTests {
    @Test("The first wait is the stream's retry: (else the policy's delay), clamped to 100 ms … 60 s")
    func firstWait() {
        let policy = ReconnectPolicy.eventSource()
        #expect(policy.delay(before: 1, retry: nil) == .seconds(3))
        #expect(policy.delay(before: 1, retry: .milliseconds(250)) == .milliseconds(250))
        #expect(policy.delay(before: 1, retry: .zero) == .milliseconds(100))
        #expect(policy.delay(before: 1, retry: .milliseconds(99_999_999_999)) == .seconds(60))
        #expect(policy.delay(before: 1, retry: .milliseconds(Int64.max)) == .seconds(60))
        #expect(ReconnectPolicy(delay: .seconds(-5)).delay(before: 1, retry: nil) == .milliseconds(100))
        #expect(ReconnectPolicy(maximumDelay: .seconds(3600)).delay(before: 1, retry: .seconds(600)) == .seconds(60))
        #expect(ReconnectPolicy(maximumDelay: .seconds(2)).delay(before: 1, retry: nil) == .seconds(2))
        #expect(ReconnectPolicy(maximumDelay: .zero).delay(before: 1, retry: nil) == .milliseconds(100))
    }

    @Test("Later waits grow with jitter and stay within 100 ms … the cap, for any attempt number")
    func laterWaits() {
        let policy = ReconnectPolicy.eventSource()
        for _ in 0..<200 {
            let second = policy.delay(before: 2, retry: .seconds(1))
            #expect(second >= .seconds(1) && second <= .seconds(2), "\(second)")
            for attempt in [3, 10, 63, 64, 1_000, Int.max] {
                let wait = policy.delay(before: attempt, retry: .milliseconds(100))
                #expect(wait >= .milliseconds(100) && wait <= .seconds(60), "\(attempt): \(wait)")
            }
            let tiny = policy.delay(before: 5, retry: .zero)
            #expect(tiny >= .milliseconds(100))
        }
    }

    @Test("maximumAttempts is at least 1; only a GET-like method reconnects unless allowed")
    func attemptsAndMethods() {
        #expect(ReconnectPolicy(maximumAttempts: 0).maximumAttempts == 1)
        #expect(ReconnectPolicy(maximumAttempts: -7).maximumAttempts == 1)
        #expect(ReconnectPolicy.eventSource().allows(.get))
        #expect(!ReconnectPolicy.eventSource().allows(.post))
        #expect(ReconnectPolicy.eventSource(reconnectsNonIdempotentMethods: true).allows(.post))
    }

    @Test("Only a failure of the connection reconnects: a cut, a timeout, an unreachable host, or the body's end")
    func whatReconnects() {
        #expect(ReconnectPolicy.reconnects(after: nil))
        #expect(ReconnectPolicy.reconnects(after: .transport))
        #expect(ReconnectPolicy.reconnects(after: .timeOut))
        #expect(ReconnectPolicy.reconnects(after: .reachability))
        #expect(!ReconnectPolicy.reconnects(after: .cancelled(.init())))
        #expect(!ReconnectPolicy.reconnects(after: .serialization))
        #expect(!ReconnectPolicy.reconnects(after: .invalidRequest(.init())))
    }
}
