import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What the retry-after fuzz target found, stated as behaviour.
@Suite("Fuzz findings: Retry-After", .sharing)
struct RetryAfterFindingsTests {
    @Test("A Retry-After count of seconds beyond Int64 milliseconds waits maximumDelay instead of trapping",
          arguments: ["10000000000000000", "99999999999999999999", String(repeating: "9", count: 400), "  123456789012345678901234 "])
    func secondsBeyondInt64(value: String) throws {
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(100), maximumDelay: .seconds(30))
        #expect(policy.delay(after: 1, retryAfter: value) == .seconds(30))
    }

    @Test("A Retry-After of 1e16 (not a count of seconds) leaves the backoff in place, without a trap")
    func exponentForm() throws {
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(100), maximumDelay: .seconds(30))
        let delay = policy.delay(after: 1, retryAfter: "1e16")
        #expect(delay >= .milliseconds(50) && delay <= .milliseconds(100), "\(delay)")
        try FuzzTargets.named("retry-after")?.check(FuzzInputs.regression("retry-after", "seconds-beyond-int64-milliseconds"))
    }
}
