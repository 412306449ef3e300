import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// RFC 9111 section 4.1: stored variants are selected by the request headers `Vary` names.
@Suite("Cache Vary (RFC 9111 §4.1)", .sharing)
struct CacheVaryTests {
    static let varying: CacheHeaderLines = [("Cache-Control", "max-age=5000"), ("Vary", "Foo")]

    static func get(_ headers: CacheHeaderLines) -> CacheRequest { CacheBench.get(headers: headers) }

    @Test("A variant answers a request whose selecting header matches, not one where it differs or is absent")
    func matching() {
        let bench = CacheBench()
        bench.store(Self.varying, request: Self.get([("Foo", "1")]))
        #expect(bench.lookup(Self.get([("Foo", "1")])).kind == .fresh)
        #expect(bench.lookup(Self.get([("Foo", "2")])).kind == .miss)
        #expect(bench.lookup(Self.get([])).kind == .miss)
        #expect(bench.lookup(Self.get([("Foo", "1"), ("Other", "3")])).kind == .fresh, "other headers are not part of the key")
    }

    @Test("A variant stored without the header matches only requests without it")
    func absentMatchesAbsent() {
        let bench = CacheBench()
        bench.store(Self.varying, request: Self.get([]))
        #expect(bench.lookup(Self.get([("Foo", "1")])).kind == .miss)
        #expect(bench.lookup(Self.get([])).kind == .fresh)
        #expect(bench.lookup(Self.get([("Foo", "")])).kind == .miss, "an empty value is not an absent header")
    }

    @Test("Names are compared ignoring case, and their order in Vary does not matter")
    func namesIgnoreCase() {
        let bench = CacheBench()
        bench.store([("Cache-Control", "max-age=5000"), ("Vary", "FOO, bar")], request: Self.get([("foo", "1"), ("Bar", "abc")]))
        #expect(bench.lookup(Self.get([("Bar", "abc"), ("FOO", "1")])).kind == .fresh)
        bench.store([("Cache-Control", "max-age=5000"), ("Vary", "bar"), ("Vary", "foo")],
                    request: Self.get([("foo", "1"), ("Bar", "abc")]))
        #expect(bench.lookup(Self.get([("Bar", "abc"), ("FOO", "1")])).kind == .fresh)
        #expect(bench.lookup(Self.get([("Bar", "abcde"), ("FOO", "1")])).kind == .miss)
    }

    @Test("Values are compared after combining lines and normalising white space around list members")
    func whitespaceNormalised() {
        let bench = CacheBench()
        bench.store(Self.varying, request: Self.get([("Foo", "1, 2")]))
        for headers: CacheHeaderLines in [[("Foo", "1,2")], [("Foo", "1"), ("Foo", "2")], [("Foo", "  1 ,\t2 ")], [("foo", "1,,2")]] {
            #expect(bench.lookup(Self.get(headers)).kind == .fresh, "\(headers)")
        }
        for headers: CacheHeaderLines in [[("Foo", "2, 1")], [("Foo", "12")], [("Foo", "1 2")]] {
            #expect(bench.lookup(Self.get(headers)).kind == .miss, "\(headers)")
        }
        let inner = CacheBench()
        inner.store(Self.varying, request: Self.get([("Foo", "a  b")]))
        #expect(inner.lookup(Self.get([("Foo", "a b")])).kind == .fresh)
        let quoted = CacheBench()
        quoted.store(Self.varying, request: Self.get([("Foo", "\"a  ,b\"")]))
        #expect(quoted.lookup(Self.get([("Foo", "\"a ,b\"")])).kind == .miss, "white space inside a quoted string is kept")
    }

    @Test("A quoted string one line leaves open goes on into the next line, as in the combined field (found by make fuzz)")
    func quotedStringAcrossLines() {
        // Split line by line, these two lines normalised to `"x"","a,  b` (the second line one open
        // quoted string), whose own normal form is `"x"","a,b`: a request sending the combined line
        // missed the variant stored for the two lines. Combined, the second line's quote closes the
        // first line's.
        let lines: CacheHeaderLines = [("Foo", "\"x\"\""), ("Foo", "\"a,  b")]
        let normalised = CacheVary.selectingValue(of: "Foo", in: lines)
        #expect(normalised == "\"x\"\",\"a,b")
        #expect(CacheVary.selectingValue(of: "Foo", in: [("Foo", normalised ?? "")]) == normalised)
        let bench = CacheBench()
        bench.store(Self.varying, request: Self.get(lines))
        #expect(bench.lookup(Self.get([("Foo", "\"x\"\",\"a,  b")])).kind == .fresh, "the combined line is the same field")
        #expect(bench.lookup(Self.get([("Foo", "\"x\"\", \"a,b")])).kind == .miss, "white space inside the quoted string is kept")
    }

    @Test("Two variants of one URL are stored side by side; the most recent of equal matches wins")
    func twoVariants() throws {
        let bench = CacheBench()
        bench.store(Self.varying, body: "one", request: Self.get([("Foo", "1")]))
        bench.store(Self.varying, body: "two", request: Self.get([("Foo", "2")]))
        #expect(try #require(bench.lookup(Self.get([("Foo", "1")])).served).text == "one")
        #expect(try #require(bench.lookup(Self.get([("Foo", "2")])).served).text == "two")
    }

    @Test("A response with another Vary replaces the variants stored under the old one")
    func varyChanged() {
        let bench = CacheBench()
        bench.store(Self.varying, request: Self.get([("Foo", "1")]))
        bench.store([("Cache-Control", "max-age=5000"), ("Vary", "Bar")], request: Self.get([("Foo", "2"), ("Bar", "b")]))
        #expect(bench.lookup(Self.get([("Foo", "1")])).kind == .miss)
        #expect(bench.lookup(Self.get([("Foo", "9"), ("Bar", "b")])).kind == .fresh)
    }

    @Test("The variants of one URL are bounded")
    func variantsBounded() {
        let storage = MemoryCacheStorage(limit: 8 << 20)
        let bench = CacheBench(cache: HTTPCache(tiers: [storage]))
        for index in 0..<100 {
            bench.store(Self.varying, request: Self.get([("Foo", "\(index)")]))
            bench.advance(1)
        }
        #expect(storage.count == HTTPCache.maximumVariantsPerURL)
        #expect(bench.lookup(Self.get([("Foo", "99")])).kind == .fresh)
        #expect(bench.lookup(Self.get([("Foo", "0")])).kind == .miss)
    }

    @Test("A validation for a Vary response carries the request's own selecting headers (the pipeline's request)")
    func validationKeepsRequest() {
        let bench = CacheBench()
        bench.store([("Expires", bench.httpDate(1)), ("ETag", "\"abcdef\""), ("Date", bench.httpDate()), ("Vary", "Abc")],
                    request: Self.get([("Abc", "123")]))
        bench.advance(5)
        #expect(bench.lookup(Self.get([("Abc", "123")])).kind == .validate(["If-None-Match: \"abcdef\""]))
    }
}
