import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A provider's circuit breaker against a server told to fail: it opens after its threshold,
/// sends nothing while open, lets its probes through after the open time, and closes on success.
@Suite("Circuit breaker", .sharing)
struct CircuitBreakerTests {
    static func work(_ server: OutageServer, _ breaker: CircuitBreaker) -> TestRequest<Data> {
        TestRequest<Data>(server.provider(breaker: breaker), "/work", timeout: 10)
    }

    @Test("Failures in a row open it: calls then fail at once with circuitOpen, and the server sees none")
    func opensAndSendsNothing() async throws {
        try await withOutageServer { server in
            let log = LogCollector()
            let net = makeManager(log: log)
            let breaker = CircuitBreaker(failureThreshold: 3, openFor: .seconds(30))
            try await server.set("fail")
            for _ in 0..<3 {
                let error = await networkError { try await net.perform(Self.work(server, breaker)) }
                #expect(error?.statusCode == 503)
            }
            for _ in 0..<50 {
                let error = await networkError { try await net.perform(Self.work(server, breaker)) }
                guard case .circuitOpen(let context)? = error else { Issue.record("got \(String(describing: error))"); return }
                let left = try #require(context.circuitOpenUntil).timeIntervalSinceNow
                #expect(left > 20 && left <= 30)
                #expect(context.reason?.contains("http://127.0.0.1:\(server.port)") == true)
            }
            let error = await networkError { try await net.perform(Self.work(server, breaker)) }
            #expect(error?.errorDescription?.hasPrefix("The request was not sent: the circuit breaker for http://127.0.0.1:\(server.port) is open") == true,
                    "\(String(describing: error?.errorDescription))")
            #expect(error?.recoverySuggestion?.contains("circuitOpenUntil") == true)
            #expect(try await server.stats().requests == 3)
            guard case .open = net.circuitState(for: server.provider()) else { Issue.record("not open"); return }
            #expect(log.text.contains("circuit breaker for http://127.0.0.1:\(server.port): closed → open"))
        }
    }

    @Test("After the open time exactly halfOpenProbes requests reach the server; a success closes it")
    func halfOpenProbes() async throws {
        try await withOutageServer { server in
            let net = makeManager()
            let changes = Protected<[String]>([])
            let breaker = CircuitBreaker(failureThreshold: 2, openFor: .milliseconds(200), halfOpenProbes: 2,
                                         onStateChange: { change in changes.withLock { $0.append("\(change.from)→\(change.to)") } })
            try await server.set("fail")
            for _ in 0..<2 { _ = await networkError { try await net.perform(Self.work(server, breaker)) } }
            // The probes answer slowly, so that every request below arrives while they run.
            try await server.set("slow", delay: 2)
            try await Task.sleep(for: .milliseconds(400))
            let outcomes = await withTaskGroup(of: String.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        do throws(NetworkError) {
                            _ = try await net.perform(Self.work(server, breaker))
                            return "ok"
                        } catch {
                            // Refused while the probes run: the reason says so, not a wait of 0 s.
                            if case .circuitOpen = error, error.context?.reason?.contains("its probes are trying the server") != true {
                                return "circuitOpen without the probes' reason: \(error.context?.reason ?? "")"
                            }
                            return error.code
                        }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "ok" }.count == 2, "\(outcomes)")
            #expect(outcomes.filter { $0 == "circuitOpen" }.count == 8, "\(outcomes)")
            #expect(try await server.stats().requests == 4)
            #expect(net.circuitState(for: server.provider()) == .closed)
            #expect(changes.withLock { $0 } == ["closed→open", "open→halfOpen", "halfOpen→closed"])
        }
    }

    @Test("A probe that fails opens it again")
    func failedProbeReopens() async throws {
        try await withOutageServer { server in
            let net = makeManager()
            let breaker = CircuitBreaker(failureThreshold: 1, openFor: .milliseconds(100))
            try await server.set("fail")
            _ = await networkError { try await net.perform(Self.work(server, breaker)) }
            try await Task.sleep(for: .milliseconds(300))
            let probe = await networkError { try await net.perform(Self.work(server, breaker)) }
            #expect(probe?.statusCode == 503)
            // Read, not asked with a request: on a loaded machine the new open time may be over by then.
            guard case .open = net.circuitState(for: server.provider()) else { Issue.record("not open again"); return }
            #expect(try await server.stats().requests == 2)
        }
    }

    @Test("Retry-After keeps it open longer; one of years is capped at retryAfterCeiling")
    func retryAfterExtendsAndIsCapped() async throws {
        try await withOutageServer { server in
            for (retryAfter, expected) in [("120", 120.0), ("999999999999", CircuitBreaker.retryAfterCeiling.seconds)] {
                let net = makeManager()
                let breaker = CircuitBreaker(failureThreshold: 1, openFor: .seconds(1))
                try await server.set("fail", retryAfter: retryAfter)
                _ = await networkError { try await net.perform(Self.work(server, breaker)) }
                let error = await networkError { try await net.perform(Self.work(server, breaker)) }
                let left = try #require(error?.context?.circuitOpenUntil).timeIntervalSinceNow
                #expect(left > expected - 30 && left <= expected, "Retry-After \(retryAfter): \(left) s")
            }
        }
    }

    @Test("A 4xx is not a failure: the circuit stays closed")
    func clientErrorsDoNotOpen() async throws {
        try await withOutageServer { server in
            let net = makeManager()
            let provider = server.provider(breaker: CircuitBreaker(failureThreshold: 2))
            for _ in 0..<5 {
                #expect(await networkError { try await net.perform(TestRequest<Data>(provider, "/status?code=404")) }?.code == "notFound")
            }
            let stats = try await server.stats()
            #expect(stats.requests == 5)
            #expect(net.circuitState(for: provider) == .closed)
        }
    }

    /// Says `.retry` to everything, and counts what it was asked about.
    final class RetryEverything: RequestInterceptor {
        let asked = Protected<[String]>([])
        func retry(_ request: OutgoingRequest, after outcome: RequestOutcome, attempt: Int) async -> RetryDecision {
            if case .failure(let error) = outcome { asked.withLock { $0.append(error.code) } }
            return attempt < 5 ? .retry : .doNotRetry
        }
    }

    @Test("circuitOpen is not retried, by the retry policy or by an interceptor")
    func circuitOpenIsNotRetried() async throws {
        try await withOutageServer { server in
            let net = makeManager()
            let interceptor = RetryEverything()
            let breaker = CircuitBreaker(failureThreshold: 2, openFor: .seconds(30))
            try await server.set("fail")
            let request = Self.work(server, breaker)
            request.retryPolicy = RetryPolicy(maximumAttempts: 5, baseDelay: .zero)
            request.interceptors = [interceptor]
            let error = await networkError { try await net.perform(request) }
            #expect(error?.code == "circuitOpen")
            #expect(try await server.stats().requests == 2)
            #expect(interceptor.asked.withLock { $0 }.isEmpty)
        }
    }

    @Test("Mocked requests are not subject to it")
    func mocksAreNotSubject() async throws {
        let net = makeManager(mocks: FileManager.default.temporaryDirectory)
        net.mocks.register(.get, "/work", .status(503))
        let provider = OutageProvider(port: 1, circuitBreaker: CircuitBreaker(failureThreshold: 1))
        for _ in 0..<3 {
            #expect(await networkError { try await net.perform(TestRequest<Data>(provider, "/work")) }?.code == "apiError")
        }
        #expect(net.circuitState(for: provider) == .closed)
    }
}
