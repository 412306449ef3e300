import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Connection limits are the process's (every manager shares libcurl's connections), so these
/// tests set them, count what the server saw, and put them back to `.unlimited` in `defer`. They
/// run one at a time (`.serialized`); the suite is the one place that changes the limits.
@Suite("Connection limits", .serialized, .measuring)
struct ConnectionLimitsTests {
    typealias Held = ConnectionServer.Held

    /// Sends `count` requests for `/hold?ms=<holding>` at once, to `providers` in turn.
    func sendAtOnce(_ count: Int, to providers: [TestProvider], holding milliseconds: Int,
                    net: NetworkManager, timeout: TimeInterval = 30) async throws -> [Held] {
        try await withThrowingTaskGroup(of: Held.self) { group in
            for index in 0..<count {
                let provider = providers[index % providers.count]
                group.addTask {
                    try await net.perform(TestRequest<Held>(provider, "/hold?ms=\(milliseconds)", timeout: timeout))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("perHost: 4 — 100 requests at once to one host never have more than 4 connections open (HTTP/1.1)")
    func perHost() async throws {
        try await withConnectionServer { server in
            let net = makeManager()
            net.connectionLimits = ConnectionLimits(perHost: 4)
            defer { net.connectionLimits = .unlimited }
            let held = try await sendAtOnce(100, to: [server.provider()], holding: 40, net: net)
            #expect(held.count == 100)
            let stats = try await server.stats()
            #expect(stats.requests == 100)
            #expect(stats.peak == 4, "\(stats.peak) connections were open at once")
            #expect(held.map(\.open).max() ?? 0 <= 4)
        }
    }

    @Test("perHost counts each host apart: two hosts at perHost: 2 have 4 connections open, never more")
    func perHostIsPerHost() async throws {
        try await withConnectionServer { server in
            let net = makeManager()
            net.connectionLimits = ConnectionLimits(perHost: 2)
            defer { net.connectionLimits = .unlimited }
            // 127.0.0.1 and localhost: two hosts to libcurl, one server that counts both.
            _ = try await sendAtOnce(60, to: [server.provider(), server.provider(host: "localhost")], holding: 40, net: net)
            let stats = try await server.stats()
            #expect(stats.requests == 60)
            #expect(stats.peak == 4, "\(stats.peak) connections were open at once")
        }
    }

    @Test("total: 3 — 60 requests at once to two hosts never have more than 3 connections open in all")
    func total() async throws {
        try await withConnectionServer { server in
            let net = makeManager()
            net.connectionLimits = ConnectionLimits(perHost: 2, total: 3)
            defer { net.connectionLimits = .unlimited }
            _ = try await sendAtOnce(60, to: [server.provider(), server.provider(host: "localhost")], holding: 40, net: net)
            let stats = try await server.stats()
            #expect(stats.requests == 60)
            #expect(stats.peak == 3, "\(stats.peak) connections were open at once")
        }
    }

    @Test("Limits set while more connections are open hold for what follows: the open ones are not kept beyond them")
    func loweredLimits() async throws {
        try await withConnectionServer { server in
            let net = makeManager()
            defer { net.connectionLimits = .unlimited }
            // Four connections, unused now.
            _ = try await sendAtOnce(4, to: [server.provider()], holding: 300, net: net)
            #expect(try await server.stats().open == 4)
            try await server.reset()
            net.connectionLimits = ConnectionLimits(total: 2)
            _ = try await sendAtOnce(40, to: [server.provider()], holding: 40, net: net)
            let stats = try await server.stats()
            #expect(stats.requests == 40)
            // libcurl makes room for a connection by closing one unused connection: in the old
            // cache, four unused ones would have let four run at once.
            #expect(stats.peak == 2, "\(stats.peak) connections were open at once")
        }
    }

    @Test("An unused connection is closed after idleTimeout: the server sees the client close it then, not before",
          arguments: [CookieStorage.none, .inMemory])
    func idleTimeout(cookies: CookieStorage) async throws {
        try await withConnectionServer { server in
            let net = makeManager()
            net.cookieStorage = cookies  // a cookie store keeps its connections in a cache of its own
            net.connectionLimits = ConnectionLimits(idleTimeout: .seconds(2))
            defer { net.connectionLimits = .unlimited }
            _ = try await sendAtOnce(3, to: [server.provider()], holding: 200, net: net)
            let ended = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(1500))
            let early = try await server.stats()
            #expect(early.accepted == 3)
            #expect(early.closes.isEmpty, "closed before the idle time: \(early.closes)")
            let stats = try await server.stats(until: { $0.closes.count >= 3 }, limit: .seconds(5))
            #expect(stats.closes.count == 3, "closed after \(ended.duration(to: .now)): \(stats.closes)")
            for close in stats.closes {
                #expect(close.by == "client")
                #expect(close.idleSeconds >= 2 && close.idleSeconds < 3.5, "\(close)")
            }
        }
    }

    @Test("Unused connections are closed after idleTimeout while another request keeps its own connection busy")
    func idleTimeoutBesideARunningRequest() async throws {
        try await withConnectionServer { server in
            let net = makeManager()
            net.connectionLimits = ConnectionLimits(idleTimeout: .seconds(2))
            defer { net.connectionLimits = .unlimited }
            let provider = server.provider()
            let long = Task { try await net.perform(TestRequest<Held>(provider, "/hold?ms=7000", timeout: 30)) }
            _ = try await server.stats(until: { $0.open == 1 }, limit: .seconds(5))
            let held = try await sendAtOnce(3, to: [provider], holding: 200, net: net)
            #expect(Set(held.map(\.connection)).count == 3)
            // Before the long request ends (7 s), the three unused connections close.
            let stats = try await server.stats(until: { $0.closes.count >= 3 }, limit: .seconds(4))
            #expect(stats.closes.count == 3, "\(stats.closes)")
            for close in stats.closes {
                #expect(close.by == "client")
                #expect(close.idleSeconds >= 2 && close.idleSeconds < 3.5, "\(close)")
            }
            #expect(stats.open == 1)
            _ = try await long.value
        }
    }

    @Test("A request waiting for a connection under a limit is not failed by the connect or idle timeout")
    func waitingIsNotIdle() async throws {
        try await withConnectionServer { server in
            let net = makeManager()
            net.connectionLimits = ConnectionLimits(perHost: 1)
            defer { net.connectionLimits = .unlimited }
            // Each holds its connection 700 ms: under the idle time, but the third waits 1.4 s first.
            net.timeouts = Timeouts(connect: .seconds(0.5), idle: .seconds(1))
            let held = try await sendAtOnce(3, to: [server.provider()], holding: 700, net: net)
            #expect(held.count == 3)
            #expect(try await server.stats().peak == 1)
        }
    }

    @Test("A request waiting for a connection fails at its own timeout, not when a connection frees up")
    func waitingEndsAtTheTimeout() async throws {
        try await withConnectionServer { server in
            let net = makeManager()
            net.connectionLimits = ConnectionLimits(perHost: 1)
            defer { net.connectionLimits = .unlimited }
            let provider = server.provider()
            let long = Task { try await net.perform(TestRequest<Held>(provider, "/hold?ms=4000", timeout: 30)) }
            _ = try await server.stats(until: { $0.open == 1 }, limit: .seconds(5))
            let started = ContinuousClock.now
            let outcome = await FaultOutcome { () throws(NetworkError) in
                try await net.perform(TestRequest<Held>(provider, "/hold?ms=0", timeout: 1))
            }
            let elapsed = started.duration(to: .now)
            #expect(outcome.error?.caseName == "timeOut", "\(outcome)")
            #expect(outcome.error?.context?.reason?.contains("connection limits") == true,
                    "\(String(describing: outcome.error?.context?.reason))")
            #expect(elapsed < .milliseconds(2500), "\(elapsed)")
            _ = try await long.value
            #expect(try await server.stats().requests == 1)
        }
    }
}

