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

    @Test("A Retry-After of text that is not ASCII is no date and never traps: the backoff applies",
          arguments: ["G\u{FB}\u{FF}\u{FE}-CS\u{5BC}\0\u{FE}-CS\u{5BC}\0\u{C}\r\u{E}", "Sun, 06 Nov 1994 08:49:37 GMT\u{301}", "\u{0605}Sun Nov  6 08:49:37 1994"])
    func nonASCIIText(value: String) throws {
        #expect(RetryPolicy.seconds(fromRetryAfter: value, now: Date(timeIntervalSince1970: 0)) == nil)
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(100), maximumDelay: .seconds(30))
        let delay = policy.delay(after: 1, retryAfter: value)
        #expect(delay >= .milliseconds(50) && delay <= .milliseconds(100), "\(delay)")
        try FuzzTargets.named("retry-after")?.check(FuzzInputs.regression("retry-after", "non-ascii-text-trapped-dateformatter"))
    }

    @Test("HTTP dates are proleptic Gregorian: 29 February of 0200 or 1900 is no date (the backoff applies), of 2000 or 1600 it is")
    func prolepticGregorianLeapDays() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        for year in ["0200", "1500", "1900"] {
            #expect(RetryPolicy.seconds(fromRetryAfter: "Fri, 29 Feb \(year) 23:21:36 GMT", now: now) == nil, "\(year)")
        }
        for year in ["2000", "1600"] {
            #expect(RetryPolicy.seconds(fromRetryAfter: "Tue, 29 Feb \(year) 23:21:36 GMT", now: now) == 0, "\(year): in the past")
        }
        // The fuzz model wrote 0200's date with Foundation's formatter, Julian before 1582, and expected 0 s.
        try FuzzTargets.named("retry-after")?.check(FuzzInputs.regression("retry-after", "julian-leap-day-0200-is-no-gregorian-date"))
    }

    @Test("A Retry-After HTTP date in lowercase is read, as RFC 9111 asks of dates")
    func lowercaseDate() {
        let now = Date(timeIntervalSince1970: 784_111_777 - 37)  // 1994-11-06 08:49:00 GMT
        #expect(RetryPolicy.seconds(fromRetryAfter: "sun, 06 nov 1994 08:49:37 gmt", now: now) == 37)
    }
}
