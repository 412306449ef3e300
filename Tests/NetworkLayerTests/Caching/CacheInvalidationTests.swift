import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// RFC 9111 section 4.4: a successful unsafe request invalidates what it may have changed.
@Suite("Cache invalidation (RFC 9111 §4.4)", .sharing)
struct CacheInvalidationTests {
    static let target = "http://example.com:8080/items/1"

    static func stored(_ urls: [String]) -> CacheBench {
        let bench = CacheBench()
        for url in urls { bench.store(["Cache-Control": "max-age=100000"].lines, request: CacheBench.get(url: url)) }
        return bench
    }

    static func unsafe(_ method: String, status: Int = 200, headers: CacheHeaderLines = [], on bench: CacheBench) -> CacheStoreOutcome {
        bench.store(headers, status: status, request: CacheRequest(method: method, url: target))
    }

    @Test("A 2xx or 3xx to an unsafe or unknown method removes the target", arguments: ["POST", "PUT", "PATCH", "DELETE", "M-SEARCH"])
    func invalidates(method: String) {
        for status in [200, 201, 204, 301, 303] {
            let bench = Self.stored([Self.target])
            #expect(Self.unsafe(method, status: status, on: bench) == .invalidated)
            #expect(bench.lookup(CacheBench.get(url: Self.target)).kind == .miss, "\(method) \(status)")
        }
    }

    @Test("A failed unsafe request invalidates nothing", arguments: [400, 404, 500, 503])
    func failedKeeps(status: Int) {
        let bench = Self.stored([Self.target])
        #expect(Self.unsafe("POST", status: status, on: bench) == .notStored(.method))
        #expect(bench.lookup(CacheBench.get(url: Self.target)).kind == .fresh)
    }

    @Test("Safe methods invalidate nothing", arguments: ["GET", "HEAD", "OPTIONS", "TRACE"])
    func safeKeeps(method: String) {
        let bench = Self.stored([Self.target])
        // (A GET's own response replaces the stored one: give it the same freshness.)
        _ = Self.unsafe(method, headers: [("Cache-Control", "max-age=100000")], on: bench)
        #expect(bench.lookup(CacheBench.get(url: Self.target)).kind == .fresh)
    }

    @Test("Location and Content-Location of the same origin are invalidated, relative or absolute")
    func sameOriginLocations() {
        let urls = ["http://example.com:8080/location_target", "http://example.com:8080/content_location_target",
                    "http://example.com:8080/items/absolute"]
        let bench = Self.stored(urls + [Self.target])
        _ = Self.unsafe("POST", status: 201, headers: [("Location", "/location_target"), ("Content-Location", "../content_location_target")],
                        on: bench)
        for url in urls.prefix(2) { #expect(bench.lookup(CacheBench.get(url: url)).kind == .miss, "\(url)") }
        #expect(bench.lookup(CacheBench.get(url: urls[2])).kind == .fresh)
        _ = Self.unsafe("PUT", headers: [("Location", urls[2])], on: bench)
        #expect(bench.lookup(CacheBench.get(url: urls[2])).kind == .miss)
    }

    @Test("Another origin's Location is never invalidated: scheme, host and port all count",
          arguments: ["http://other.example/location", "https://example.com:8080/location", "http://example.com/location",
                      "http://example.com:8081/location", "//evil.example/location"])
    func otherOrigins(location: String) {
        let victim = location.hasPrefix("//") ? "http:" + location : location
        let bench = Self.stored([victim])
        _ = Self.unsafe("POST", headers: [("Location", location), ("Content-Location", location)], on: bench)
        #expect(bench.lookup(CacheBench.get(url: victim)).kind == .fresh)
    }

    @Test("Every variant and every credential's copy of the target goes")
    func allVariants() {
        let bench = CacheBench()
        for user in ["a", "b"] {
            bench.store([("Cache-Control", "max-age=1000"), ("Vary", "Foo")],
                        request: CacheBench.get(url: Self.target, headers: [("Authorization", user), ("Foo", user)]))
        }
        _ = Self.unsafe("DELETE", on: bench)
        for user in ["a", "b"] {
            #expect(bench.lookup(CacheBench.get(url: Self.target, headers: [("Authorization", user), ("Foo", user)]),
                                 policy: .returnCacheDontLoad).kind == .unavailable(.nothingStored))
        }
    }

    @Test("Garbage in Location is ignored, never a trap")
    func garbageLocation() {
        let bench = Self.stored([Self.target])
        for location in ["", " ", "::::", "http://[::1", "\u{0}", String(repeating: "/..", count: 10_000), "http://%zz"] {
            #expect(Self.unsafe("POST", headers: [("Location", location)], on: bench) == .invalidated)
        }
    }
}
