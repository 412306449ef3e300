import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Hedged reads against a server whose every n-th answer is slow: a copy goes out after the
/// delay, the first answer wins, and the server sees the slow one's connection closed.
@Suite("Hedged reads", .sharing)
struct HedgingTests {
    static func hedge(_ server: OutageServer, every: Int, delay: Double, hedging: Hedging?,
                      method: HTTPMethod = .get) -> TestRequest<Data> {
        let request = TestRequest<Data>(server.provider(), "/hedge?every=\(every)&delay=\(delay)", method: method, timeout: 20)
        request.hedging = hedging
        return request
    }

    /// Polls the server until `condition` holds of its counts (at most 10 s).
    static func stats(of server: OutageServer, until condition: (OutageServer.Stats) -> Bool) async throws -> OutageServer.Stats {
        var stats = try await server.stats()
        for _ in 0..<100 where !condition(stats) {
            try await Task.sleep(for: .milliseconds(100))
            stats = try await server.stats()
        }
        return stats
    }

    @Test("A slow answer is hedged: the copy answers, and the slow transfer is cancelled")
    func slowAnswerIsHedged() async throws {
        try await withOutageServer { server in
            let net = makeManager()
            let hedging = Hedging.after(.duration(.milliseconds(100)))
            // The third request waits 60 s: only the copy can answer it within the timeout.
            for _ in 0..<3 {
                _ = try await net.perform(Self.hedge(server, every: 3, delay: 60, hedging: hedging))
            }
            let stats = try await Self.stats(of: server) { $0.cancelled == 1 }
            #expect(stats.requests >= 4)
            #expect(stats.cancelled == 1)
        }
    }

    @Test("Against a fast server no copy is sent")
    func fastServerGetsNoHedge() async throws {
        try await withOutageServer { server in
            let net = makeManager()
            for _ in 0..<10 {
                _ = try await net.perform(Self.hedge(server, every: 1000, delay: 0, hedging: .after(.duration(.seconds(5)))))
            }
            #expect(try await server.stats().requests == 10)
        }
    }

    @Test("A percentile hedges only once the origin has answered minimumSamples times")
    func percentileWaitsForSamples() async throws {
        try await withOutageServer { server in
            let net = makeManager()
            let count = HedgeDelay.minimumSamples - 1
            // Every 6th answer is slow (0.3 s), and nothing is known yet: none is hedged.
            for _ in 0..<count {
                _ = try await net.perform(Self.hedge(server, every: 6, delay: 0.3, hedging: .after(.percentile(50))))
            }
            #expect(try await server.stats().requests == count)
        }
    }

    @Test("Once the origin is known, an answer slower than its percentile is hedged")
    func percentileHedgesTheSlowOne() async throws {
        try await withOutageServer { server in
            let net = makeManager()
            // 24 fast answers, then one that waits 60 s: only the copy can answer it within the timeout.
            for _ in 0..<25 {
                _ = try await net.perform(Self.hedge(server, every: 25, delay: 60, hedging: .after(.percentile(95))))
            }
            let stats = try await Self.stats(of: server) { $0.cancelled == 1 }
            // At least: a fast answer slower than the percentile on a loaded machine is hedged too.
            #expect(stats.requests >= 26)
            #expect(stats.cancelled == 1)
        }
    }

    @Test("A POST is not hedged")
    func postIsNotHedged() async throws {
        try await withOutageServer { server in
            let net = makeManager()
            _ = try await net.perform(Self.hedge(server, every: 1, delay: 0.5, hedging: .after(.duration(.milliseconds(50))),
                                                 method: .post))
            let stats = try await server.stats()
            #expect(stats.requests == 1)
            #expect(stats.cancelled == 0)
        }
    }

    @Test("Each copy counts in the provider's circuit breaker")
    func copiesCountInTheBreaker() async throws {
        try await withOutageServer { server in
            let net = makeManager()
            let provider = server.provider(breaker: CircuitBreaker(failureThreshold: 2, openFor: .seconds(30)))
            // Each answer is a 503 after 1 s: the copy goes out, and both fail.
            try await server.set("slow-fail", delay: 1)
            let request = TestRequest<Data>(provider, "/work", timeout: 10)
            request.hedging = .after(.duration(.milliseconds(50)))
            #expect(await networkError { try await net.perform(request) }?.statusCode == 503)
            guard case .open = net.circuitState(for: provider) else { Issue.record("not open"); return }
            #expect(try await server.stats().requests == 2)
        }
    }
}
