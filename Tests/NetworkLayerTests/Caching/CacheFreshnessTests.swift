import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// RFC 9111 section 4.2: how long a stored response is fresh, and how old it is.
@Suite("Cache freshness (RFC 9111 §4.2)", .sharing)
struct CacheFreshnessTests {
    @Test("max-age: fresh until its age passes max-age, then validated")
    func maxAge() {
        let bench = CacheBench()
        bench.store(["Cache-Control": "max-age=100", "ETag": "\"v1\""].lines)
        bench.advance(99)
        #expect(bench.lookup().kind == .fresh)
        bench.advance(2)
        #expect(bench.lookup().kind == .validate(["If-None-Match: \"v1\""]))
    }

    @Test("max-age=0 is stale at once")
    func maxAgeZero() {
        let bench = CacheBench()
        bench.store(["Cache-Control": "max-age=0", "Last-Modified": bench.httpDate(-100)].lines)
        #expect(bench.lookup().kind == .validate(["If-Modified-Since: \(bench.httpDate(-100))"]))
    }

    @Test("Expires minus Date is the lifetime; Expires is ignored when max-age is present, even invalid")
    func expires() {
        let bench = CacheBench()
        bench.store(["Date": bench.httpDate(), "Expires": bench.httpDate(60)].lines)
        bench.advance(59)
        #expect(bench.lookup().kind == .fresh)
        bench.advance(2)
        #expect(bench.lookup().kind == .miss)

        let withMaxAge = CacheBench()
        withMaxAge.store(["Date": withMaxAge.httpDate(), "Expires": withMaxAge.httpDate(-60), "Cache-Control": "max-age=100"].lines)
        #expect(withMaxAge.lookup().kind == .fresh)
        let invalidMaxAge = CacheBench()
        invalidMaxAge.store(["Date": invalidMaxAge.httpDate(), "Expires": invalidMaxAge.httpDate(600), "Cache-Control": "max-age=x"].lines)
        #expect(invalidMaxAge.lookup().kind == .miss)
    }

    @Test("Expires: 0 and other invalid dates mean already expired; an invalid Date is the time received",
          arguments: ["0", "-1", "yesterday", "Thu, 18 Aug 2050 02:01:18 UTC", "Thu, 18 Aug 50 02:01:18 GMT",
                      "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT"])
    func invalidExpires(value: String) {
        let bench = CacheBench()
        bench.store(["Date": bench.httpDate(), "Expires": value].lines)
        #expect(bench.lookup().kind == .miss)
    }

    @Test("An invalid Date does not spoil a valid Expires")
    func invalidDate() {
        let bench = CacheBench()
        bench.store(["Date": "foo", "Expires": bench.httpDate(30)].lines)
        #expect(bench.lookup().kind == .fresh)
    }

    @Test("Expires in the far future (2038, 2286, 9999) is fresh, never a trap")
    func farFuture() {
        for expires in ["Tue, 19 Jan 2038 14:14:08 GMT", "Sun, 21 Nov 2286 04:46:39 GMT", "Fri, 31 Dec 9999 23:59:59 GMT"] {
            let bench = CacheBench()
            bench.store(["Date": bench.httpDate(), "Expires": expires].lines)
            #expect(bench.lookup().kind == .fresh, "\(expires)")
            let lifetime = CacheFreshness(statusCode: 200, headers: ["Expires": expires].lines, requestTime: bench.now,
                                          responseTime: bench.now).lifetime
            #expect(lifetime > 0 && lifetime <= Double(1 << 31))
        }
    }

    @Test("Date is used: a response dated two hours ago with max-age of one hour is stale (apparent_age)")
    func apparentAge() {
        let bench = CacheBench()
        bench.store(["Date": bench.httpDate(-7200), "Cache-Control": "max-age=3600"].lines)
        #expect(bench.lookup().kind == .miss)
    }

    @Test("Age adds to the age: Age beyond max-age is stale; the response delay counts too")
    func ageHeader() {
        let bench = CacheBench()
        bench.store(["Date": bench.httpDate(), "Cache-Control": "max-age=3600", "Age": "7200"].lines)
        #expect(bench.lookup().kind == .miss)

        let delayed = CacheBench()
        delayed.store(["Date": delayed.httpDate(), "Cache-Control": "max-age=100", "Age": "50"].lines, delay: 60)
        #expect(delayed.lookup().kind == .miss, "50 s Age plus 60 s in flight is past 100 s")
    }

    @Test("Age is read from its first line and first member; non-numbers and negatives are ignored; parameters dropped",
          arguments: [("abc", true), ("-7200", true), ("7200.0", true), ("0, 7200", true), ("7200, 0", false),
                      ("7200;foo=bar", false), ("2147483647", false), ("2147483648", false), ("2147483649", false),
                      ("99999999999999999999999999", false), ("0", true), ("", true)])
    func ageParsing(value: String, fresh: Bool) {
        let bench = CacheBench()
        bench.store(["Date": bench.httpDate(), "Cache-Control": "max-age=3600", "Age": value].lines)
        #expect(bench.lookup().kind == (fresh ? .fresh : .miss), "Age: \(value)")
    }

    @Test("Two Age lines: the first counts")
    func twoAgeLines() {
        let bench = CacheBench()
        bench.store([("Date", bench.httpDate()), ("Cache-Control", "max-age=3600"), ("Age", "0"), ("Age", "7200")])
        #expect(bench.lookup().kind == .fresh)
        let reversed = CacheBench()
        reversed.store([("Date", reversed.httpDate()), ("Cache-Control", "max-age=3600"), ("Age", "7200"), ("Age", "0")])
        #expect(reversed.lookup().kind == .miss)
    }

    @Test("A malformed max-age is stale; a huge one is 2^31 seconds",
          arguments: [("max-age=-3600", false), ("max-age=1e9", false), ("max-age=3600.0", false), ("max-age=a3600", false),
                      ("max-age=3600a", false), ("max-age='3600'", false), ("max-age =3600", false), ("max-age= 3600", false),
                      ("max-age=", false), ("max-age", false), ("max-age=003600", true), ("max-age=\"3600\"", true),
                      ("MaX-AgE=3600", true), ("foobar, max-age=3600", true), ("max-age=2147483648", true),
                      ("max-age=99999999999999999999", true), ("max-age=99999999999", true)])
    func maxAgeValues(value: String, fresh: Bool) {
        let bench = CacheBench()
        bench.store(["Cache-Control": value].lines)
        bench.advance(10)
        #expect(bench.lookup().kind == (fresh ? .fresh : .miss), "Cache-Control: \(value)")
    }

    @Test("Duplicate max-age: the first one counts (RFC 9111 §4.2.1), on one line or two")
    func duplicateMaxAge() {
        let sameLine = CacheBench()
        sameLine.store(["Cache-Control": "max-age=1800, max-age=1"].lines)
        sameLine.advance(10)
        #expect(sameLine.lookup().kind == .fresh)
        let twoLines = CacheBench()
        twoLines.store([("Cache-Control", "max-age=1"), ("Cache-Control", "max-age=1800")])
        twoLines.advance(10)
        #expect(twoLines.lookup().kind == .miss)
    }

    @Test("max-age inside a quoted string is not a max-age")
    func quotedMaxAge() {
        for value in ["extension=\"max-age=3600\", max-age=1", "max-age=1, extension=\"max-age=3600\""] {
            let bench = CacheBench()
            bench.store(["Cache-Control": value].lines)
            bench.advance(10)
            #expect(bench.lookup().kind == .miss, "\(value)")
        }
    }

    @Test("s-maxage is ignored (a private cache): the shorter max-age decides, and s-maxage alone gives no freshness")
    func sMaxAgeIgnored() {
        let bench = CacheBench()
        bench.store(["Cache-Control": "s-maxage=3600, max-age=1"].lines)
        bench.advance(10)
        #expect(bench.lookup().kind == .miss)
        let alone = CacheBench()
        alone.store(["Cache-Control": "s-maxage=3600"].lines)
        alone.advance(10)
        #expect(alone.lookup().kind == .miss)
    }

    @Test("Heuristic freshness: 10 % of the time since Last-Modified, at most one day, for heuristically cacheable statuses")
    func heuristic() {
        let bench = CacheBench()
        bench.store(["Date": bench.httpDate(), "Last-Modified": bench.httpDate(-10_000)].lines)
        bench.advance(999)
        #expect(bench.lookup().kind == .fresh)
        bench.advance(2)
        #expect(bench.lookup().kind == .validate(["If-Modified-Since: \(bench.httpDate(-11_001))"]))

        let capped = CacheBench()
        capped.store(["Date": capped.httpDate(), "Last-Modified": capped.httpDate(-100 * 86_400)].lines)
        capped.advance(86_399)
        #expect(capped.lookup().kind == .fresh)
        capped.advance(2)
        #expect(capped.lookup().kind != .fresh, "capped at one day")
    }

    @Test("No heuristic freshness for statuses that are not heuristically cacheable, unless public",
          arguments: [(201, false), (202, false), (403, false), (502, false), (503, false), (599, false),
                      (203, true), (204, true), (404, true), (405, true), (410, true), (414, true), (501, true)])
    func heuristicStatuses(status: Int, cached: Bool) {
        let bench = CacheBench()
        bench.store(["Date": bench.httpDate(), "Last-Modified": bench.httpDate(-86_400)].lines, status: status)
        bench.advance(5)
        #expect(bench.lookup().kind.isServed == cached, "status \(status)")
        let marked = CacheBench()
        marked.store(["Date": marked.httpDate(), "Last-Modified": marked.httpDate(-86_400), "Cache-Control": "public"].lines, status: status)
        marked.advance(5)
        #expect(marked.lookup().kind == .fresh, "status \(status) with public")
    }

    @Test("No heuristic when an explicit expiration is present, even one already past")
    func noHeuristicWithExplicit() {
        let bench = CacheBench()
        bench.store(["Date": bench.httpDate(), "Last-Modified": bench.httpDate(-100_000), "Expires": bench.httpDate(-5000)].lines)
        bench.advance(3)
        #expect(bench.lookup().kind == .validate(["If-Modified-Since: \(bench.httpDate(-100_003))"]))
    }

    @Test("Every stored response is served with an Age header equal to its current age, Date unchanged")
    func ageGenerated() throws {
        let bench = CacheBench()
        let date = bench.httpDate()
        bench.store(["Date": date, "Cache-Control": "max-age=100000", "Age": "30"].lines)
        bench.advance(3)
        let served = try #require(bench.lookup().served)
        #expect(served.header("Age") == "33")
        #expect(served.age == 33)
        #expect(served.headers.values(named: "age").count == 1)
        #expect(served.header("Date") == date)
    }

    @Test("A clock that goes back does not make a response younger or trap")
    func clockBack() {
        let bench = CacheBench()
        bench.store(["Cache-Control": "max-age=100"].lines)
        bench.advance(-1_000_000)
        #expect(bench.lookup().kind == .fresh)
        let freshness = CacheFreshness(statusCode: 200, headers: ["Cache-Control": "max-age=1"].lines,
                                       requestTime: .nan, responseTime: .infinity)
        #expect(freshness.currentAge(now: .infinity).isFinite)
    }
}

extension Dictionary where Key == String, Value == String {
    /// The dictionary as header lines, sorted by name (a stable order for tests).
    var lines: CacheHeaderLines {
        sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }
}
