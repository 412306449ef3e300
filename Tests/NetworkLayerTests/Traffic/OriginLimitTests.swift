import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A provider with its own limit.
private struct LimitedProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var maximumRequestsPerOrigin: OriginLimit?
    func createHTTPHeaders() -> [String: String] { [:] }
}

private typealias Answer = ConcurrencyServer.Answer

/// Sends `count` requests for `path` at once and returns their answers.
private func sendAtOnce(_ count: Int, _ path: String, to provider: any ServiceProvider, net: NetworkManager) async throws -> [Answer] {
    try await withThrowingTaskGroup(of: Answer.self) { group in
        for _ in 0..<count {
            group.addTask { try await net.perform(TestRequest<Answer>(provider, path, timeout: TestTimeout.seconds(60))) }
        }
        return try await group.reduce(into: []) { $0.append($1) }
    }
}

@Suite("Requests per origin", .sharing)
struct OriginLimitTests {
    @Test("A limit of 3: 30 requests at once all succeed and the server never has more than 3 in flight")
    func fixedLimitHolds() async throws {
        try await withConcurrencyServer { server in
            let net = makeManager()
            net.maximumRequestsPerOrigin = 3
            let answers = try await sendAtOnce(30, "/hold?ms=50", to: server.provider(), net: net)
            #expect(answers.count == 30)
            let stats = try await server.stats()
            #expect(stats.requests == 30)
            #expect(stats.peak == 3, "\(stats.peak) requests were in flight at once")
            #expect(net.trafficState(for: server.provider()) == TrafficState(limit: 3, inFlight: 0, queued: 0))
        }
    }

    @Test("A provider's limit wins over the manager's: 2 for it, none for the manager")
    func providerLimitWins() async throws {
        try await withConcurrencyServer { server in
            let net = makeManager()
            let provider = LimitedProvider(port: server.port, maximumRequestsPerOrigin: .fixed(2))
            _ = try await sendAtOnce(20, "/hold?ms=50", to: provider, net: net)
            #expect(try await server.stats().peak == 2)
            #expect(net.trafficState(for: server.provider()) == nil)
        }
    }

    @Test("A hedge takes a place under the limit like any hop: with a limit of 1 the copy waits in the queue, and the server never has 2 in flight")
    func hedgesCountAgainstTheLimit() async throws {
        try await withConcurrencyServer { server in
            let net = makeManager()
            net.maximumRequestsPerOrigin = 1
            let request = TestRequest<Answer>(server.provider(), "/hold?ms=400", timeout: TestTimeout.seconds(30))
            request.hedging = .after(.duration(.milliseconds(50)))
            let provider = server.provider()
            let call = Task { try await net.perform(request) }
            let queued = await waitUntil { net.trafficState(for: provider)?.queued == 1 }
            _ = try await call.value
            #expect(queued != nil, "the copy never waited in the queue")
            let stats = try await server.stats()
            #expect(stats.peak == 1, "\(stats.peak) requests were in flight at once")
            // The first copy gives its place back at its response's head, and the winner stops the
            // other at its body's end: on a loaded machine the queued copy may reach the server in
            // between, never beside it.
            #expect(stats.requests <= 2, "\(stats.requests)")
        }
    }

    @Test("A hop that waits for a place reports queued, at the time it asked, before its connection's events; one that does not wait reports none")
    func queuedEvent() async throws {
        try await withConcurrencyServer { server in
            let net = makeManager()
            net.maximumRequestsPerOrigin = 1
            let collector = EventCollector()
            let subscription = net.addEventHandler { collector.append($0) }
            defer { subscription.cancel() }
            let provider = server.provider()
            async let blocker: Answer = net.perform(TestRequest<Answer>(provider, "/hold?ms=300", timeout: TestTimeout.seconds(30)))
            await waitUntil { net.trafficState(for: provider)?.inFlight == 1 }
            _ = try await net.perform(TestRequest<Answer>(provider, "/hold?ms=1", timeout: TestTimeout.seconds(30)))
            _ = try await blocker
            let ends = await collector.waitForEnds(2)
            #expect(ends.count == 2)
            let names = ends.map { id in collector.of(id).map(\.kind.name) }
            #expect(names.filter { $0.contains("queued") }.count == 1, "\(names)")
            let waited = collector.of(ends.first { id in collector.of(id).contains { $0.kind.name == "queued" } } ?? -1)
            let kinds = waited.map(\.kind.name)
            #expect(kinds.first == "callStart" && kinds.dropFirst().first == "queued", "\(kinds)")
            #expect(zip(waited, waited.dropFirst()).allSatisfy { $0.time <= $1.time }, "times out of order: \(kinds)")
        }
    }

    @Test("With a limit of 1, queued high-priority requests go before low ones queued earlier; FIFO within a priority")
    func priorities() async throws {
        try await withConcurrencyServer { server in
            let net = makeManager()
            net.maximumRequestsPerOrigin = 1
            let provider = server.provider()
            try await withThrowingTaskGroup(of: Void.self) { group in
                func send(_ tag: String, _ priority: RequestPriority, query: String = "ms=10", queuedBefore: Int) async {
                    let request = TestRequest<Answer>(provider, "/hold?\(query)&tag=\(tag)", timeout: TestTimeout.seconds(30))
                    request.priority = priority
                    group.addTask { _ = try await net.perform(request) }
                    // Each is queued before the next is sent: arrival order is what the test says.
                    await waitUntil { (net.trafficState(for: provider).map { $0.inFlight + $0.queued } ?? 0) > queuedBefore }
                }
                // The blocker holds the one place until all six wait, however slowly they are queued.
                await send("blocker", .normal, query: "ms=30000&until=released", queuedBefore: 0)
                await send("low1", .low, queuedBefore: 1)
                await send("low2", .low, queuedBefore: 2)
                await send("normal1", .normal, queuedBefore: 3)
                await send("high1", .high, queuedBefore: 4)
                await send("high2", .high, queuedBefore: 5)
                await send("low3", .low, queuedBefore: 6)
                try await server.release()
                try await group.waitForAll()
            }
            let order = try await server.stats().order
            #expect(order == ["blocker", "high1", "high2", "normal1", "low1", "low2", "low3"], "\(order)")
        }
    }

    @Test("A request cancelled while queued throws .cancelled within 100 ms, leaves the queue and never reaches the server", .measuring)
    func cancelWhileQueued() async throws {
        try await withConcurrencyServer { server in
            let net = makeManager()
            net.maximumRequestsPerOrigin = 1
            let provider = server.provider()
            let blocker = Task { try await net.perform(TestRequest<Answer>(provider, "/hold?ms=3000&tag=blocker", timeout: TestTimeout.seconds(30))) }
            await waitUntil { net.trafficState(for: provider)?.inFlight == 1 }
            let queued = Task { try await net.perform(TestRequest<Answer>(provider, "/hold?ms=10&tag=queued", timeout: TestTimeout.seconds(30))) }
            await waitUntil { net.trafficState(for: provider)?.queued == 1 }
            let cancelledAt = ContinuousClock.now
            queued.cancel()
            let result = await queued.result
            let latency = cancelledAt.duration(to: .now)
            #expect(latency < .seconds(TestTimeout.seconds(0.1)), "cancelled after \(latency)")
            guard case .failure(let error) = result, case .cancelled(let context)? = error as? NetworkError else {
                Issue.record("expected .cancelled, got \(result)")
                return
            }
            #expect(context.reason?.contains("waited for a place under its origin's limit of 1") == true)
            // The blocker is still on the wire: the cancel did not wait for a place.
            #expect(net.trafficState(for: provider) == TrafficState(limit: 1, inFlight: 1, queued: 0))
            _ = try await blocker.value
            let stats = try await server.stats()
            #expect(stats.order == ["blocker"])
        }
    }

    @Test("A request whose timeout passes while it waits fails with .timeOut saying why, and leaves the queue")
    func timeoutWhileQueued() async throws {
        try await withConcurrencyServer { server in
            let net = makeManager()
            net.maximumRequestsPerOrigin = 1
            let provider = server.provider()
            let blocker = Task { try await net.perform(TestRequest<Answer>(provider, "/hold?ms=3000&tag=blocker", timeout: TestTimeout.seconds(30))) }
            await waitUntil { net.trafficState(for: provider)?.inFlight == 1 }
            let error = await #expect(throws: NetworkError.self) {
                try await net.perform(TestRequest<Answer>(provider, "/hold?ms=10&tag=late", timeout: 0.3))
            }
            guard case .timeOut(let context)? = error else {
                Issue.record("expected .timeOut, got \(String(describing: error))")
                return
            }
            #expect(context.reason?.contains("for a place under its origin's limit of 1") == true)
            #expect(context.reason?.contains("raise the limit or the timeout") == true)
            #expect(net.trafficState(for: provider) == TrafficState(limit: 1, inFlight: 1, queued: 0))
            _ = try await blocker.value
            let stats = try await server.stats()
            #expect(stats.order == ["blocker"])
        }
    }

    @Test("2,000 requests queued behind one, cancelled at once: all throw .cancelled, the queue is empty, none is sent", .measuring)
    func manyCancelledAtOnce() async throws {
        try await withConcurrencyServer { server in
            let net = makeManager()
            net.maximumRequestsPerOrigin = 1
            let provider = server.provider()
            let blocker = Task { try await net.perform(TestRequest<Answer>(provider, "/hold?ms=20000&tag=blocker", timeout: TestTimeout.seconds(60))) }
            await waitUntil { net.trafficState(for: provider)?.inFlight == 1 }
            let cancelled = Protected(0)
            let group = Task {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<2000 {
                        group.addTask {
                            do throws(NetworkError) {
                                _ = try await net.perform(TestRequest<Answer>(provider, "/hold?ms=10&tag=queued"))
                            } catch {
                                if case .cancelled = error { cancelled.withLock { $0 += 1 } }
                            }
                        }
                    }
                }
            }
            #expect(await waitUntil(limit: .seconds(60)) { net.trafficState(for: provider)?.queued == 2000 } != nil)
            let started = ContinuousClock.now
            group.cancel()
            await group.value
            let took = started.duration(to: .now)
            #expect(cancelled.withLock { $0 } == 2000)
            #expect(net.trafficState(for: provider) == TrafficState(limit: 1, inFlight: 1, queued: 0))
            #expect(took < .seconds(TestTimeout.seconds(5)), "cancelling 2,000 queued requests took \(took)")
            blocker.cancel()
            _ = await blocker.result
            let stats = try await server.stats()
            #expect(stats.order == ["blocker"])
        }
    }

    @Test("The slow origin's queue does not hold back another origin: a request to it is answered while the slow one's queue waits")
    func originsAreApart() async throws {
        try await withConcurrencyServer { slow in
            try await withConcurrencyServer { fast in
                let net = makeManager()
                net.maximumRequestsPerOrigin = 1
                let slowProvider = slow.provider()
                let queue = Task { try await sendAtOnce(10, "/hold?ms=400", to: slowProvider, net: net) }
                await waitUntil { net.trafficState(for: slowProvider)?.queued == 9 }
                let answer = try await net.perform(TestRequest<Answer>(fast.provider(), "/hold?ms=10"))
                #expect(answer.inFlight == 1)
                // Answered while most of the slow origin's requests still wait.
                #expect((net.trafficState(for: slowProvider)?.queued ?? 0) >= 5)
                queue.cancel()
                _ = await queue.result
            }
        }
    }

    @Test("The time a request waited is its metrics' queueTime, the log line's 'queued', and the limit is in its metrics")
    func queueTimeIsReported() async throws {
        try await withConcurrencyServer { server in
            let log = LogCollector()
            let net = makeManager(log: log)
            net.maximumRequestsPerOrigin = 1
            let provider = server.provider()
            let responses = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
                for _ in 0..<2 {
                    group.addTask { try await net.performWithResponse(TestRequest<Answer>(provider, "/hold?ms=300")).response }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let times = responses.compactMap { $0.metrics?.queueTime }.sorted()
            #expect(times.count == 2)
            #expect(times.first == .zero)
            #expect((times.last ?? .zero) >= .milliseconds(100), "the second waited \(times.last ?? .zero)")
            #expect(responses.allSatisfy { $0.metrics?.originLimit == 1 })
            #expect(log.text.components(separatedBy: "queued ").count == 2, "one line says queued:\n\(log.text)")
        }
    }

    @Test("A streamed body gives its place back when its head arrives: with a limit of 1, a request goes while the stream is still open")
    func streamsDoNotHoldTheirPlace() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.maximumRequestsPerOrigin = 1
        let stream = try await net.perform(StreamRequest<ByteStream>(server.provider(), "/slow-bytes/200000?chunk=1000&interval=0.05"))
        var iterator = stream.makeAsyncIterator()
        let first = try await iterator.next()
        #expect((first?.count ?? 0) > 0)
        #expect(net.trafficState(for: server.provider())?.inFlight == 0)
        let echoed = try await net.performWithResponse(TestRequest<JSONValue>(server.provider(), "/echo"))
        #expect(echoed.response.metrics?.queueTime == .zero)
        // The stream is still far from its end (200 chunks, 50 ms apart).
        let next = try await iterator.next()
        #expect((next?.count ?? 0) > 0)
    }

    @Test("Without a limit nothing is queued and the metrics say so")
    func offByDefault() async throws {
        try await withConcurrencyServer { server in
            let net = makeManager()
            #expect(net.maximumRequestsPerOrigin == nil)
            let response = try await net.performWithResponse(TestRequest<Answer>(server.provider(), "/hold?ms=1")).response
            #expect(response.metrics?.queueTime == .zero)
            #expect(response.metrics?.originLimit == nil)
            #expect(net.trafficState(for: server.provider()) == nil)
        }
    }

    @Test("A limit of 0, a negative one or an adaptive one with a minimum of 0 fails the request, saying what to set")
    func badLimits() async throws {
        try await withConcurrencyServer { server in
            let net = makeManager()
            for limit: OriginLimit in [0, -4, .adaptive(minimum: 0, maximum: 10, initial: 5), .adaptive(minimum: 5, maximum: 2, initial: 3)] {
                net.maximumRequestsPerOrigin = limit
                await #expect { _ = try await net.perform(TestRequest<Answer>(server.provider(), "/hold?ms=1")) } throws: { error in
                    guard case .invalidRequest(let context) = error as? NetworkError else { return false }
                    let text = (error as? NetworkError)?.errorDescription ?? ""
                    return context.reason?.contains("maximumRequestsPerOrigin") == true && text.contains("1 or more")
                }
            }
            let stats = try await server.stats()
            #expect(stats.requests == 0)
        }
    }

    @Test("A limit of 1,000,000 is accepted: 50 requests at once, none waits")
    func hugeLimit() async throws {
        try await withConcurrencyServer { server in
            let net = makeManager()
            net.maximumRequestsPerOrigin = .fixed(1_000_000)
            let responses = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await net.performWithResponse(TestRequest<Answer>(server.provider(), "/hold?ms=20")).response }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.count == 50)
            #expect(responses.allSatisfy { $0.metrics?.queueTime == .zero && $0.metrics?.originLimit == 1_000_000 })
        }
    }

    @Test("Mocked requests are never held: a limit of 0 does not fail them")
    func mocksAreNotLimited() async throws {
        let net = makeManager(mocks: URL(fileURLWithPath: "/nonexistent-mock-directory"))
        net.maximumRequestsPerOrigin = 0
        net.mocks.register(.get, "/hold", .data(Data(#"{"tag": "mock", "inFlight": 0}"#.utf8)))
        let answer = try await net.perform(TestRequest<Answer>(TestProvider(host: "127.0.0.1", httpScheme: .http, port: 9), "/hold"))
        #expect(answer.tag == "mock")
    }

    @Test("An adaptive limit falls when the server slows down as it is loaded, and the server never sees more than the limit")
    func adaptiveFallsUnderLoad() async throws {
        try await withConcurrencyServer { server in
            let net = makeManager()
            net.maximumRequestsPerOrigin = .adaptive(minimum: 1, maximum: 20, initial: 20)
            let provider = server.provider()
            // The usual latency first, one at a time.
            for _ in 0..<15 { _ = try await net.perform(TestRequest<Answer>(provider, "/load?ms=10")) }
            // One at a time never raises it (a loaded machine's jitter may have lowered it a little).
            let before = try #require(net.trafficState(for: provider)?.limit)
            #expect(before <= 20)
            let done = Protected(false)
            let burst = Task {
                defer { done.withLock { $0 = true } }
                return try await sendAtOnce(150, "/load?ms=10", to: provider, net: net)
            }
            var lowest = before
            while !done.withLock({ $0 }) {
                lowest = min(lowest, net.trafficState(for: provider)?.limit ?? before)
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(try await burst.value.count == 150)
            #expect(lowest <= before / 2, "the limit went from \(before) to \(lowest) at the lowest")
            let state = try #require(net.trafficState(for: provider))
            #expect(state.inFlight == 0 && state.queued == 0)
            #expect(try await server.stats().peak <= 20)
        }
    }
}
