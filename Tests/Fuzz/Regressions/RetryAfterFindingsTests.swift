import Foundation
import Testing
@testable import NetworkLayer

/// What the retry-after fuzz target found, stated as behaviour.
@Suite("Fuzz findings: Retry-After")
struct RetryAfterFindingsTests {
    @Test("A Retry-After beyond Int64 milliseconds (1e16 seconds and more) waits maximumDelay instead of trapping",
          arguments: ["1e16", "99999999999999999999", "1e308", "  1e300 "])
    func secondsBeyondInt64(value: String) throws {
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(100), maximumDelay: .seconds(30))
        #expect(policy.delay(after: 1, retryAfter: value) == .seconds(30))
        try FuzzTargets.named("retry-after")?.check(FuzzInputs.regression("retry-after", "seconds-beyond-int64-milliseconds"))
    }
}
