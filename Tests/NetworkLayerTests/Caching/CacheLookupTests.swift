import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// RFC 9111 section 4 and 5.2.1: when a stored response answers a request, under each
/// ``CachePolicy`` and the request's own `Cache-Control` directives.
@Suite("Cache lookup: policies and request directives", .sharing)
struct CacheLookupTests {
    /// A bench holding one response: fresh for 100 s, with an ETag and a Last-Modified, stored at start.
    static func stored(_ extra: [String: String] = [:]) -> CacheBench {
        let bench = CacheBench()
        var headers = ["Cache-Control": "max-age=100", "ETag": "\"v1\"", "Date": bench.httpDate(),
                       "Last-Modified": bench.httpDate(-10_000)]
        headers.merge(extra) { $1 }
        bench.store(headers.lines)
        return bench
    }

    static func request(_ cacheControl: String) -> CacheRequest {
        CacheBench.get(headers: [("Cache-Control", cacheControl)])
    }

    @Test("useProtocol: fresh is served, stale is validated with If-None-Match and If-Modified-Since, nothing stored is a miss")
    func useProtocol() throws {
        let bench = Self.stored()
        let served = try #require(bench.lookup().served)
        #expect(bench.lookup().kind == .fresh)
        #expect(served.text == "body" && served.statusCode == 200)
        bench.advance(101)
        #expect(bench.lookup().kind == .validate(["If-None-Match: \"v1\"", "If-Modified-Since: \(bench.httpDate(-10_101))"]))
        #expect(bench.lookup(CacheBench.get(url: "http://example.com/other")).kind == .miss)
    }

    @Test("A stale response without validators goes out unchanged")
    func staleWithoutValidators() {
        let bench = CacheBench()
        bench.store(["Cache-Control": "max-age=1"].lines)
        bench.advance(2)
        #expect(bench.lookup().kind == .miss)
    }

    @Test("reloadIgnoringCache never serves or validates, whatever is stored")
    func reload() {
        let bench = Self.stored()
        #expect(bench.lookup(policy: .reloadIgnoringCache).kind == .miss)
        bench.advance(1000)
        #expect(bench.lookup(policy: .reloadIgnoringCache).kind == .miss)
        #expect(bench.lookup(Self.request("only-if-cached"), policy: .reloadIgnoringCache).kind == .miss)
    }

    @Test("returnCacheElseLoad serves stale and no-cache responses without validation; the network only when nothing is stored")
    func returnCacheElseLoad() {
        let bench = Self.stored(["Cache-Control": "max-age=100, must-revalidate"])
        #expect(bench.lookup(policy: .returnCacheElseLoad).kind == .fresh)
        bench.advance(1_000_000)
        #expect(bench.lookup(policy: .returnCacheElseLoad).kind == .stale)
        #expect(bench.lookup(Self.request("no-cache"), policy: .returnCacheElseLoad).kind == .stale, "request directives are not read")
        #expect(bench.lookup(CacheBench.get(url: "http://example.com/none"), policy: .returnCacheElseLoad).kind == .miss)
        let noCache = Self.stored(["Cache-Control": "no-cache"])
        #expect(noCache.lookup(policy: .returnCacheElseLoad).kind == .stale)
    }

    @Test("returnCacheDontLoad serves whatever is stored and is unavailable, never a miss, when nothing is")
    func returnCacheDontLoad() {
        let bench = Self.stored()
        bench.advance(1_000_000)
        #expect(bench.lookup(policy: .returnCacheDontLoad).kind == .stale)
        #expect(bench.lookup(CacheBench.get(url: "http://example.com/none"), policy: .returnCacheDontLoad).kind == .unavailable(.nothingStored))
        let post = CacheRequest(method: "POST", url: "http://example.com/resource")
        #expect(bench.lookup(post, policy: .returnCacheDontLoad).kind == .unavailable(.nothingStored))
        let ranged = CacheBench.get(headers: [("Range", "bytes=0-1")])
        #expect(bench.lookup(ranged, policy: .returnCacheDontLoad).kind == .unavailable(.nothingStored))
    }

    @Test("Request no-cache validates a fresh response")
    func requestNoCache() {
        let bench = Self.stored()
        #expect(bench.lookup(Self.request("no-cache")).kind == .validate(["If-None-Match: \"v1\"", "If-Modified-Since: \(bench.httpDate(-10_000))"]))
    }

    @Test("Request max-age: a response older than it is validated; max-age=0 always; an invalid one reads as 0")
    func requestMaxAge() {
        let bench = Self.stored()
        bench.advance(30)
        #expect(bench.lookup(Self.request("max-age=60")).kind == .fresh)
        #expect(bench.lookup(Self.request("max-age=10")).kind != .fresh)
        #expect(bench.lookup(Self.request("max-age=0")).kind != .fresh)
        #expect(bench.lookup(Self.request("max-age=abc")).kind != .fresh)
    }

    @Test("Request max-age counts the Age the response came with")
    func requestMaxAgeWithAge() {
        let bench = CacheBench()
        bench.store(["Cache-Control": "max-age=100000", "Date": bench.httpDate(), "Age": "1800"].lines)
        #expect(bench.lookup(Self.request("max-age=600")).kind == .miss)
        #expect(bench.lookup(Self.request("max-age=3600")).kind == .fresh)
    }

    @Test("Request max-stale serves a stale response within it (or any, without a value), never past must-revalidate or no-cache")
    func maxStale() {
        let bench = Self.stored()
        bench.advance(150)
        #expect(bench.lookup(Self.request("max-stale=100")).kind == .stale)
        #expect(bench.lookup(Self.request("max-stale=10")).kind != .stale)
        #expect(bench.lookup(Self.request("max-stale")).kind == .stale)
        #expect(bench.lookup(Self.request("max-stale=-1")).kind != .stale)
        let strict = Self.stored(["Cache-Control": "max-age=100, must-revalidate"])
        strict.advance(150)
        #expect(strict.lookup(Self.request("max-stale")).kind != .stale)
        let noCache = Self.stored(["Cache-Control": "no-cache"])
        #expect(noCache.lookup(Self.request("max-stale")).kind != .stale)
    }

    @Test("Request max-stale with a response stored already old (Age)")
    func maxStaleWithAge() {
        let bench = CacheBench()
        bench.store(["Cache-Control": "max-age=1500", "Age": "2000"].lines)
        #expect(bench.lookup(Self.request("max-stale=1000")).kind == .stale)
        #expect(bench.lookup().kind == .miss)
    }

    @Test("Request min-fresh: a response that will not stay fresh that long is validated")
    func minFresh() {
        let bench = CacheBench()
        bench.store(["Cache-Control": "max-age=1500"].lines)
        #expect(bench.lookup(Self.request("min-fresh=2000")).kind == .miss)
        #expect(bench.lookup(Self.request("min-fresh=1000")).kind == .fresh)
        let aged = CacheBench()
        aged.store(["Cache-Control": "max-age=1500", "Age": "1000"].lines)
        #expect(aged.lookup(Self.request("min-fresh=1000")).kind == .miss)
    }

    @Test("only-if-cached: a fresh response is served; nothing stored or only a stale one is unavailable, never the network")
    func onlyIfCached() {
        let bench = Self.stored()
        #expect(bench.lookup(Self.request("only-if-cached")).kind == .fresh)
        #expect(bench.lookup(CacheBench.get(url: "http://example.com/none", headers: [("Cache-Control", "only-if-cached")])).kind
                    == .unavailable(.nothingStored))
        bench.advance(1000)
        #expect(bench.lookup(Self.request("only-if-cached")).kind == .unavailable(.needsValidation))
        #expect(bench.lookup(Self.request("only-if-cached, max-stale")).kind == .stale)
    }

    @Test("Pragma is ignored in requests and responses (RFC 9111 deprecates it)")
    func pragmaIgnored() {
        let bench = CacheBench()
        bench.store(["Cache-Control": "max-age=3600", "Pragma": "no-cache"].lines)
        #expect(bench.lookup().kind == .fresh)
        #expect(bench.lookup(CacheBench.get(headers: [("Pragma", "no-cache")])).kind == .fresh)
    }

    @Test("Requests with their own preconditions or a Range go out unchanged")
    func conditionalRequestsBypass() {
        let bench = Self.stored()
        for header in ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range", "if-none-match"] {
            #expect(bench.lookup(CacheBench.get(headers: [(header, "\"x\"")])).kind == .miss, "\(header)")
        }
    }

    @Test("Only GET is answered from the cache", arguments: ["HEAD", "POST", "PUT", "DELETE", "OPTIONS", "get"])
    func onlyGet(method: String) {
        let bench = Self.stored()
        #expect(bench.lookup(CacheRequest(method: method, url: "http://example.com/resource")).kind == .miss)
    }

    @Test("Query strings are part of the key; a fragment is not")
    func keys() {
        let bench = CacheBench()
        bench.store(["Cache-Control": "max-age=100"].lines, request: CacheBench.get(url: "http://example.com/r?a=1"))
        #expect(bench.lookup(CacheBench.get(url: "http://example.com/r?a=1")).kind == .fresh)
        #expect(bench.lookup(CacheBench.get(url: "http://example.com/r?a=1#top")).kind == .fresh)
        #expect(bench.lookup(CacheBench.get(url: "http://example.com/r?a=2")).kind == .miss)
        #expect(bench.lookup(CacheBench.get(url: "http://example.com/r")).kind == .miss)
    }

    @Test("A response stored with one credential answers only requests with the same credential")
    func partitionedByCredentials() {
        let bench = CacheBench()
        let alice = CacheBench.get(headers: [("Authorization", "Bearer alice")])
        let bob = CacheBench.get(headers: [("Authorization", "Bearer bob")])
        bench.store(["Cache-Control": "max-age=100"].lines, request: alice)
        #expect(bench.lookup(alice).kind == .fresh)
        #expect(bench.lookup(bob).kind == .miss)
        #expect(bench.lookup().kind == .miss, "signed out")
        let keyed = CacheBench.get(headers: [("X-Key", "k1")], secret: ["X-Key"])
        bench.store(["Cache-Control": "max-age=100"].lines, request: keyed)
        #expect(bench.lookup(CacheBench.get(headers: [("X-Key", "k2")], secret: ["x-key"])).kind == .miss)
        #expect(bench.lookup(CacheBench.get(headers: [("x-key", "k1")], secret: ["x-key"])).kind == .fresh)
    }

    @Test("Cookies and unrelated headers do not stop reuse of a fresh response")
    func cookiesDoNotMatter() {
        let bench = CacheBench()
        bench.store(["Cache-Control": "max-age=100", "Set-Cookie": "a=b"].lines)
        #expect(bench.lookup(CacheBench.get(headers: [("Cookie", "a=b"), ("Other", "3")])).kind == .fresh)
    }

    @Test("stale-while-revalidate: served stale with a background revalidation inside the window, validated after it")
    func staleWhileRevalidate() {
        let bench = Self.stored(["Cache-Control": "max-age=1, stale-while-revalidate=4"])
        bench.advance(3)
        #expect(bench.lookup().kind == .staleRevalidating)
        if case .stale(_, let revalidation?) = bench.lookup() {
            #expect(revalidation.headers.map(\.name) == ["If-None-Match", "If-Modified-Since"])
        }
        bench.advance(3)
        #expect(bench.lookup().kind != .staleRevalidating)
        let strict = Self.stored(["Cache-Control": "max-age=1, stale-while-revalidate=60, must-revalidate"])
        strict.advance(3)
        #expect(strict.lookup().kind != .staleRevalidating)
        let asked = Self.stored(["Cache-Control": "max-age=1, stale-while-revalidate=60"])
        asked.advance(3)
        #expect(asked.lookup(Self.request("no-cache")).kind != .staleRevalidating)
    }
}
