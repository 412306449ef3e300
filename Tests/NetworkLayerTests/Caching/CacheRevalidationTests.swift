import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// RFC 9111 sections 4.3.3 to 4.3.5 and RFC 5861: a 304 freshens a stored response, a HEAD
/// updates one, and stale-if-error serves one after a failure.
@Suite("Cache revalidation: 304, HEAD, stale-if-error", .sharing)
struct CacheRevalidationTests {
    static func stale(_ headers: CacheHeaderLines) -> CacheBench {
        let bench = CacheBench()
        bench.store(headers)
        bench.advance(10)
        return bench
    }

    @Test("A 304 updates the stored headers, keeps the stored status and body, and makes it fresh again")
    func notModifiedUpdates() throws {
        let bench = Self.stale([("Cache-Control", "max-age=2"), ("ETag", "\"e1\""), ("Test-Header", "old"), ("Kept", "k")])
        guard case .revalidated(let served) = bench.freshen([("Cache-Control", "max-age=3600"), ("ETag", "\"e1\""), ("Test-Header", "new")])
        else { Issue.record("not revalidated"); return }
        #expect(served.statusCode == 200 && served.text == "body")
        #expect(served.header("Test-Header") == "new" && served.header("Kept") == "k" && served.header("Cache-Control") == "max-age=3600")
        #expect(served.header("Age") == "0")
        bench.advance(100)
        let again = try #require(bench.lookup().served)
        #expect(bench.lookup().kind == .fresh)
        #expect(again.header("Test-Header") == "new")
    }

    @Test("A 304 never updates Content-Length, Content-Encoding or hop-by-hop fields; it updates the other Content-* fields")
    func excludedFields() {
        let bench = Self.stale([("Cache-Control", "max-age=2"), ("ETag", "\"e1\""), ("Content-Length", "36"),
                                ("Content-Encoding", "gzip"), ("Content-Type", "text/plain"), ("Content-Location", "/foo")])
        guard case .revalidated(let served) = bench.freshen([("ETag", "\"e1\""), ("Content-Length", "10"), ("Content-Encoding", "br"),
                                                             ("Content-Type", "text/plain;charset=utf-8"), ("Content-Location", "/bar"),
                                                             ("Connection", "X-Hop"), ("X-Hop", "1"), ("Keep-Alive", "t")])
        else { Issue.record("not revalidated"); return }
        #expect(served.header("Content-Length") == "36" && served.header("Content-Encoding") == "gzip")
        #expect(served.header("Content-Type") == "text/plain;charset=utf-8" && served.header("Content-Location") == "/bar")
        #expect(served.header("X-Hop") == nil && served.header("Keep-Alive") == nil && served.header("Connection") == nil)
    }

    @Test("A 304 carrying a different strong ETag updates nothing: noMatch, and the stored response stays as it was")
    func differentStrongTag() throws {
        let bench = Self.stale([("Cache-Control", "max-age=2"), ("ETag", "\"abcdef\""), ("A", "1")])
        guard case .noMatch = bench.freshen([("ETag", "\"ghijkl\""), ("Cache-Control", "max-age=3600"), ("A", "2")]) else {
            Issue.record("a different strong ETag updated the stored response")
            return
        }
        #expect(bench.lookup().kind == .validate(["If-None-Match: \"abcdef\""]))
        let stored = try #require(bench.lookup(policy: .returnCacheDontLoad).served)
        #expect(stored.header("A") == "1" && stored.header("ETag") == "\"abcdef\"")
    }

    @Test("A weak ETag in a 304 selects by weak comparison; a Last-Modified that differs selects nothing")
    func weakAndLastModified() {
        let weak = Self.stale([("Cache-Control", "max-age=2"), ("ETag", "W/\"v\"")])
        guard case .noMatch = weak.freshen([("ETag", "\"v\"")]) else {
            Issue.record("a strong 304 tag matched a weak stored one (a strong validator selects only the same strong one)")
            return
        }
        let weakStored = Self.stale([("Cache-Control", "max-age=2"), ("ETag", "\"v\"")])
        guard case .revalidated = weakStored.freshen([("ETag", "W/\"v\"")]) else { Issue.record("weak comparison failed"); return }

        let dated = Self.stale([("Cache-Control", "max-age=2"), ("Last-Modified", "Wed, 01 Jan 2020 00:00:00 GMT"), ("T", "1")])
        guard case .revalidated(let served) = dated.freshen([("Last-Modified", "Wed, 01 Jan 2020 00:00:00 GMT")]) else {
            Issue.record("a 304 with the same Last-Modified did not revalidate")
            return
        }
        #expect(served.header("T") == "1")
        guard case .noMatch = dated.freshen([("Last-Modified", "Thu, 02 Jan 2020 00:00:00 GMT")]) else {
            Issue.record("a 304 with another Last-Modified revalidated")
            return
        }
    }

    @Test("A 304 without validators revalidates the response the request selects")
    func withoutValidators() {
        let bench = Self.stale([("Cache-Control", "max-age=2"), ("Last-Modified", "Wed, 01 Jan 2020 00:00:00 GMT")])
        guard case .revalidated = bench.freshen([("Date", bench.httpDate())]) else { Issue.record("not revalidated"); return }
        guard case .noMatch = CacheBench().freshen([]) else { Issue.record("revalidated nothing stored"); return }
    }

    @Test("A 304 saying no-store is served, and the stored response is removed")
    func notModifiedNoStore() {
        let bench = Self.stale([("Cache-Control", "max-age=2"), ("ETag", "\"e\"")])
        guard case .revalidated = bench.freshen([("ETag", "\"e\""), ("Cache-Control", "no-store")]) else {
            Issue.record("not revalidated")
            return
        }
        #expect(bench.lookup(policy: .returnCacheDontLoad).kind == .unavailable(.nothingStored))
    }

    @Test("Another variant's ETag is offered when no variant matches; its 304 serves it and stores it for this request too")
    func otherVariantsTags() throws {
        let bench = CacheBench()
        bench.store([("Expires", bench.httpDate(10_000)), ("ETag", "\"abcdef\""), ("Vary", "Abc")],
                    request: CacheBench.get(headers: [("Abc", "123")]))
        let other = CacheBench.get(headers: [("Abc", "456")])
        #expect(bench.lookup(other).kind == .validate(["If-None-Match: \"abcdef\""]))
        guard case .revalidated(let served) = bench.freshen([("ETag", "\"abcdef\"")], request: other) else {
            Issue.record("not revalidated")
            return
        }
        #expect(served.text == "body")
        #expect(bench.lookup(other).kind == .fresh)
        #expect(bench.lookup(CacheBench.get(headers: [("Abc", "123")])).kind == .fresh)
    }

    @Test("A HEAD's 200 updates the stored GET response when validators agree, and removes it when they do not")
    func headUpdates() throws {
        let head = CacheRequest(method: "HEAD", url: "http://example.com/resource")
        let bench = Self.stale([("Cache-Control", "max-age=2"), ("Template-A", "1"), ("ETag", "\"h\"")])
        #expect(bench.store([("Cache-Control", "max-age=1000"), ("Template-A", "2"), ("ETag", "\"h\"")], request: head) == .updated)
        let served = try #require(bench.lookup().served)
        #expect(bench.lookup().kind == .fresh)
        #expect(served.header("Template-A") == "2" && served.text == "body")

        let changed = Self.stale([("Cache-Control", "max-age=2"), ("ETag", "\"h1\"")])
        #expect(changed.store([("Cache-Control", "max-age=1000"), ("ETag", "\"h2\"")], request: head) == .updated)
        #expect(changed.lookup(policy: .returnCacheDontLoad).kind == .unavailable(.nothingStored))

        let sized = Self.stale([("Cache-Control", "max-age=2")])
        #expect(sized.store([("Cache-Control", "max-age=1000"), ("Content-Length", "99")], request: head) == .updated)
        #expect(sized.lookup(policy: .returnCacheDontLoad).kind == .unavailable(.nothingStored), "4 bytes stored, 99 announced")
    }

    @Test("stale-if-error: served after a transport failure or 500/502/503/504 within its window, not after")
    func staleIfError() {
        let bench = Self.stale([("Cache-Control", "max-age=2, stale-if-error=60")])
        let request = CacheBench.get()
        for failure in [CacheFailure.transport, .status(500), .status(502), .status(503), .status(504)] {
            #expect(bench.cache.staleResponse(for: request, policy: .useProtocol, after: failure, now: bench.date)?.text == "body",
                    "\(failure)")
        }
        for failure in [CacheFailure.status(501), .status(404), .status(505)] {
            #expect(bench.cache.staleResponse(for: request, policy: .useProtocol, after: failure, now: bench.date) == nil, "\(failure)")
        }
        #expect(bench.cache.staleResponse(for: request, policy: .reloadIgnoringCache, after: .transport, now: bench.date) == nil)
        bench.advance(100)
        #expect(bench.cache.staleResponse(for: request, policy: .useProtocol, after: .transport, now: bench.date) == nil)
    }

    @Test("stale-if-error in the request counts too; must-revalidate and no-cache forbid serving stale")
    func staleIfErrorLimits() {
        let plain = Self.stale([("Cache-Control", "max-age=2")])
        #expect(plain.cache.staleResponse(for: CacheBench.get(), policy: .useProtocol, after: .transport, now: plain.date) == nil)
        let asked = CacheBench.get(headers: [("Cache-Control", "stale-if-error=60")])
        #expect(plain.cache.staleResponse(for: asked, policy: .useProtocol, after: .transport, now: plain.date) != nil)
        for value in ["max-age=2, stale-if-error=60, must-revalidate", "max-age=2, stale-if-error=60, no-cache"] {
            let strict = Self.stale([("Cache-Control", value)])
            #expect(strict.cache.staleResponse(for: asked, policy: .useProtocol, after: .transport, now: strict.date) == nil, "\(value)")
        }
    }
}
