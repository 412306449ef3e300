import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

@Suite("Retries", .sharing)
struct RetryTests {
    func provider(_ server: TestServer, policy: RetryPolicy?) -> RetryingProvider {
        RetryingProvider(port: server.port, retryPolicy: policy)
    }

    func attempts(_ key: String, on server: TestServer) async throws -> Int {
        try await makeManager().perform(TestRequest<Attempt>(server.provider(), "/flaky-count/\(key)")).attempt
    }

    @Test("Failing statuses are retried with exponential backoff")
    func failingStatusesAreRetriedWithBackoff() async throws {
        try await withTestServer { server in
            let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(200))
            let clock = ContinuousClock()
            let start = clock.now
            let result = try await makeManager().perform(TestRequest<Attempt>(provider(server, policy: policy), "/flaky/a?fail=2&status=503"))
            let elapsed = clock.now - start
            #expect(result.attempt == 3)
            // Two waits: 200 ms and 400 ms, each with jitter down to half.
            #expect(elapsed >= .milliseconds(300), "\(elapsed)")
            let count = try await attempts("a", on: server)
            #expect(count == 3)
        }
    }

    @Test("Retries stop at maximumAttempts and the last error is returned")
    func retriesStopAtTheMaximum() async throws {
        try await withTestServer { server in
            let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(10))
            let error = await networkError {
                try await makeManager().perform(TestRequest<Attempt>(provider(server, policy: policy), "/flaky/b?fail=10&status=500"))
            }
            guard case .apiError(let context) = error, context.statusCode == 500 else { Issue.record("got \(String(describing: error))"); return }
            let count = try await attempts("b", on: server)
            #expect(count == 3)
        }
    }

    @Test("Retry-After is honoured")
    func retryAfterIsHonoured() async throws {
        try await withTestServer { server in
            let policy = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(1))
            let clock = ContinuousClock()
            let start = clock.now
            let result = try await makeManager().perform(TestRequest<Attempt>(provider(server, policy: policy),
                                                                              "/flaky/c?fail=1&status=429&retryAfter=1"))
            #expect(result.attempt == 2)
            #expect(clock.now - start >= .seconds(1))
        }
    }

    @Test("Transport failures are retried")
    func transportFailuresAreRetried() async throws {
        try await withTestServer { server in
            let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(10))
            let result = try await makeManager().perform(TestRequest<Attempt>(provider(server, policy: policy), "/flaky/d?fail=2&status=0"))
            #expect(result.attempt == 3)
        }
    }

    @Test("POST is retried only when retriesNonIdempotentMethods is set")
    func postIsNotRetriedByDefault() async throws {
        try await withTestServer { server in
            let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(10))
            let error = await networkError {
                try await makeManager().perform(TestRequest<Attempt>(provider(server, policy: policy), "/flaky/e?fail=1&status=503",
                                                                     method: .post))
            }
            guard case .apiError(let context) = error, context.statusCode == 503 else { Issue.record("got \(String(describing: error))"); return }
            let count = try await attempts("e", on: server)
            #expect(count == 1)

            var opted = policy
            opted.retriesNonIdempotentMethods = true
            let result = try await makeManager().perform(TestRequest<Attempt>(provider(server, policy: opted), "/flaky/f?fail=1&status=503",
                                                                              method: .post))
            #expect(result.attempt == 2)
        }
    }

    @Test("Without a policy nothing is retried")
    func noPolicyMeansNoRetry() async throws {
        try await withTestServer { server in
            _ = await networkError { try await makeManager().perform(TestRequest<Attempt>(server.provider(), "/flaky/g?fail=1")) }
            let count = try await attempts("g", on: server)
            #expect(count == 1)
        }
    }

    @Test("A request's retry policy overrides the provider's")
    func aRequestPolicyOverridesTheProviders() async throws {
        try await withTestServer { server in
            let request = TestRequest<Attempt>(provider(server, policy: nil), "/flaky/h?fail=1&status=502")
            request.retryPolicy = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(10))
            let result = try await makeManager().perform(request)
            #expect(result.attempt == 2)
        }
    }

    @Test("Cancellation stops the retry loop at once", .measuring)
    func cancellationStopsTheRetryLoopAtOnce() async throws {
        try await withTestServer { server in
            let policy = RetryPolicy(maximumAttempts: 5, baseDelay: .seconds(10))
            let provider = provider(server, policy: policy)
            let task = Task { try await makeManager().perform(TestRequest<Attempt>(provider, "/flaky/i?fail=5&status=503")) }
            try await Task.sleep(for: .milliseconds(300))
            let clock = ContinuousClock()
            let start = clock.now
            task.cancel()
            let error = await networkError { try await task.value }
            #expect(clock.now - start < .seconds(1))
            guard case .cancelled = error else { Issue.record("got \(String(describing: error))"); return }
            let count = try await attempts("i", on: server)
            #expect(count == 1)
        }
    }

    @Test("Each failed attempt shows in the log")
    func eachAttemptShowsInTheLog() async throws {
        try await withTestServer { server in
            let log = LogCollector()
            let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(10))
            _ = try await makeManager(log: log).perform(TestRequest<Attempt>(provider(server, policy: policy), "/flaky/j?fail=2&status=503"))
            #expect(log.text.contains("attempt 1 of 3 failed (status 503)"))
            #expect(log.text.contains("attempt 2 of 3 failed (status 503)"))
        }
    }

    @Test("Retry-After is read as seconds or as an HTTP date")
    func retryAfterAcceptsHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let later = "Tue, 14 Nov 2023 22:13:30 GMT"  // 10 s after `now`
        #expect(RetryPolicy.seconds(fromRetryAfter: later, now: now) == 10)
        #expect(RetryPolicy.seconds(fromRetryAfter: "7", now: now) == 7)
        #expect(RetryPolicy.seconds(fromRetryAfter: "soon", now: now) == nil)
    }
}
