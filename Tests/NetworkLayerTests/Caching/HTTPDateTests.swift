import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// HTTP dates (RFC 9110 section 5.6.7) as the cache reads `Date`, `Expires` and `Last-Modified`.
@Suite("HTTP dates", .sharing)
struct HTTPDateTests {
    static let now: Double = 1_700_000_000

    @Test("The three forms read as the same instant; names in any case")
    func threeForms() {
        let expected: Int64 = 784_111_777
        for text in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                     "SUN, 06 NOV 1994 08:49:37 gmt", "sunday, 06-nov-94 08:49:37 Gmt", " Sun, 06 Nov 1994 08:49:37 GMT\t"] {
            #expect(HTTPDate.seconds(from: text, now: Self.now) == expected, "\(text)")
        }
        #expect(HTTPDate.seconds(from: "Thu Aug  8 02:01:18 2050", now: Self.now) == 2_543_536_878)
    }

    @Test("Anything off the grammar is nil",
          arguments: ["Thu, 18 Aug 2050 02:01:18 UTC", "Thu, 18 Aug 2050 02:01:18 AEST", "Thu, 18 Aug 50 02:01:18 GMT",
                      "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT", "Thu, 18-Aug-2050 02:01:18 GMT",
                      "Thu, 18 Aug 2050 02.01.18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT", "Thu, 31 Feb 2050 02:01:18 GMT",
                      "Thu, 18 Aug 2050 24:00:00 GMT", "Thu, 18 Aug 2050 02:60:00 GMT", "Xyz, 18 Aug 2050 02:01:18 GMT",
                      "0", "", "-1", "Thursday, 18-Aug-2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 GMT x",
                      String(repeating: "Thu, ", count: 1000)])
    func invalid(text: String) {
        #expect(HTTPDate.seconds(from: text, now: Self.now) == nil)
    }

    @Test("A two-digit RFC 850 year more than 50 years ahead is the century before")
    func twoDigitYears() {
        // now is 2023: 73 is 2073 (50 years ahead), 74 is 1974.
        #expect(HTTPDate.seconds(from: "Sunday, 01-Jan-73 00:00:00 GMT", now: Self.now).map { HTTPDate.civil(fromDays: $0 / 86_400).year } == 2073)
        #expect(HTTPDate.seconds(from: "Tuesday, 01-Jan-74 00:00:00 GMT", now: Self.now).map { HTTPDate.civil(fromDays: $0 / 86_400).year } == 1974)
        #expect(HTTPDate.seconds(from: "Thursday, 18-Aug-50 02:01:18 GMT", now: Self.now) == 2_544_400_878)
        #expect(HTTPDate.seconds(from: "Thursday, 18-Aug-50 02:01:18 GMT", now: .nan) != nil)
    }

    @Test("Property: IMF-fixdate written for any second from year 0 to 9999 reads back as that second")
    func roundTrip() {
        var random = SeededRandom(seed: 5)
        let first = HTTPDate.days(year: 0, month: 1, day: 1) * 86_400, last = HTTPDate.days(year: 9999, month: 12, day: 31) * 86_400 + 86_399
        for seconds in [first, last, 0, -1, 86_399, 951_782_400, 2_147_483_648] + (0..<20_000).map({ _ in Int64.random(in: first...last, using: &random) }) {
            let text = HTTPDate.imfFixdate(seconds)
            #expect(HTTPDate.seconds(from: text, now: Self.now) == seconds, "\(seconds) \(text)")
        }
        #expect(HTTPDate.imfFixdate(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test("The civil calendar: leap years and days since 1970")
    func calendar() {
        #expect(HTTPDate.days(year: 1970, month: 1, day: 1) == 0)
        #expect(HTTPDate.days(year: 2000, month: 3, day: 1) - HTTPDate.days(year: 2000, month: 2, day: 28) == 2)
        #expect(HTTPDate.days(year: 1900, month: 3, day: 1) - HTTPDate.days(year: 1900, month: 2, day: 28) == 1)
        #expect(HTTPDate.seconds(from: "Thu, 29 Feb 2024 00:00:00 GMT", now: Self.now) != nil)
        #expect(HTTPDate.seconds(from: "Sun, 29 Feb 2023 00:00:00 GMT", now: Self.now) == nil)
    }
}
