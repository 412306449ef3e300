import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// RFC 9111 section 3: what may be stored, and which of its header fields.
@Suite("Cache storability (RFC 9111 §3)", .sharing)
struct CacheStorabilityTests {
    @Test("Heuristically cacheable statuses are stored without explicit freshness; others need it",
          arguments: [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501])
    func heuristicStatusesStored(status: Int) {
        let bench = CacheBench()
        #expect(bench.store(["ETag": "\"a\""].lines, status: status) == .stored)
    }

    @Test("Other final statuses are stored only with explicit freshness (max-age, Expires, public, private)",
          arguments: [201, 202, 299, 302, 303, 307, 400, 403, 499, 500, 502, 503, 504, 599])
    func otherStatuses(status: Int) {
        let bench = CacheBench()
        #expect(bench.store(["ETag": "\"a\""].lines, status: status) == .notStored(.notCacheable))
        for header in [["Cache-Control": "max-age=100"], ["Expires": bench.httpDate(100)], ["Cache-Control": "public"],
                       ["Cache-Control": "private"]] {
            #expect(CacheBench().store(header.lines, status: status) == .stored, "\(status) \(header)")
        }
        let fresh = CacheBench()
        fresh.store(["Cache-Control": "max-age=100000", "Date": fresh.httpDate()].lines, status: status)
        #expect(fresh.lookup().served?.statusCode == status)
    }

    @Test("206 is never stored, nor 304, 1xx or nonsense statuses", arguments: [206, 304, 100, 199, 600, 999, -1, 0])
    func neverStored(status: Int) {
        let bench = CacheBench()
        #expect(bench.store(["Cache-Control": "max-age=100"].lines, status: status) != .stored)
    }

    @Test("no-store in the response, in any case and even with max-age and Expires, stores nothing")
    func responseNoStore() {
        for value in ["no-store", "No-StOrE", "max-age=10000, no-store", "no-store=\"x\"", "no-store junk"] {
            let bench = CacheBench()
            #expect(bench.store(["Cache-Control": value, "Expires": bench.httpDate(10_000)].lines) == .notStored(.responseNoStore), "\(value)")
            #expect(bench.lookup().kind == .miss)
        }
    }

    @Test("A no-store response leaves the older stored response in place")
    func noStoreKeepsOld() throws {
        let bench = CacheBench()
        bench.store(["Cache-Control": "max-age=10000", "A": "1"].lines)
        bench.store(["Cache-Control": "no-store, max-age=0", "A": "2"].lines)
        let served = try #require(bench.lookup().served)
        #expect(served.header("A") == "1")
    }

    @Test("no-store in the request stores nothing and bypasses the stored response")
    func requestNoStore() {
        let bench = CacheBench()
        let request = CacheBench.get(headers: [("Cache-Control", "no-store")])
        #expect(bench.store(["Cache-Control": "max-age=100"].lines, request: request) == .notStored(.requestNoStore))
        bench.store(["Cache-Control": "max-age=100"].lines)
        #expect(bench.lookup(request).kind == .miss)
        #expect(bench.lookup().kind == .fresh)
    }

    @Test("must-understand overrides no-store for a status this cache understands, not for others")
    func mustUnderstand() {
        let bench = CacheBench()
        #expect(bench.store(["Cache-Control": "max-age=3600, no-store, must-understand"].lines) == .stored)
        #expect(bench.lookup().kind == .fresh)
        let unknown = CacheBench()
        #expect(unknown.store(["Cache-Control": "max-age=3600, no-store, must-understand"].lines, status: 599) == .notStored(.status))
    }

    @Test("private is fine in a private cache")
    func privateStored() {
        let bench = CacheBench()
        #expect(bench.store(["Cache-Control": "private, max-age=3600"].lines) == .stored)
        #expect(bench.lookup().kind == .fresh)
    }

    @Test("Only GET responses are stored; HEAD, OPTIONS and TRACE responses are not", arguments: ["HEAD", "OPTIONS", "TRACE"])
    func onlyGet(method: String) {
        let bench = CacheBench()
        let request = CacheRequest(method: method, url: "http://example.com/resource")
        #expect(bench.store(["Cache-Control": "max-age=100"].lines, request: request) != .stored)
        #expect(bench.lookup().kind == .miss)
    }

    @Test("Hop-by-hop, Connection-listed and proxy fields are not stored; every other field is")
    func storedFields() throws {
        let bench = CacheBench()
        let headers: CacheHeaderLines = [
            ("Cache-Control", "max-age=3600"), ("Connection", "a, B"), ("a", "1"), ("b", "2"), ("c", "3"),
            ("Keep-Alive", "x"), ("Proxy-Connection", "x"), ("TE", "x"), ("Transfer-Encoding", "chunked"), ("Upgrade", "x"),
            ("Proxy-Authenticate", "x"), ("Proxy-Authentication-Info", "x"), ("Proxy-Authorization", "x"),
            ("Test-Header", "t"), ("X-Test-Header", "x"), ("Content-Foo", "f"), ("Content-Encoding", "gzip"),
            ("Content-Length", "10"), ("Content-Location", "/bar"), ("Content-MD5", "m"), ("Content-Range", "r"),
            ("Content-Type", "text/plain;charset=utf-8"), ("Clear-Site-Data", "cookies"), ("ETag", "\"e\""),
            ("Expires", "Mon, 11 Jan 2038 11:11:11 GMT"), ("Public-Key-Pins", "p"), ("Set-Cookie", "a=c"),
            ("Set-Cookie2", "a=c"), ("X-Frame-Options", "sameorigin"), ("X-XSS-Protection", "1; mode=block"),
        ]
        bench.store(headers)
        let served = try #require(bench.lookup().served)
        for name in ["Connection", "a", "b", "Keep-Alive", "Proxy-Connection", "TE", "Transfer-Encoding", "Upgrade",
                     "Proxy-Authenticate", "Proxy-Authentication-Info", "Proxy-Authorization"] {
            #expect(served.header(name) == nil, "\(name) was stored")
        }
        for (name, value) in headers where !["Connection", "a", "b", "Keep-Alive", "Proxy-Connection", "TE", "Transfer-Encoding",
                                            "Upgrade", "Proxy-Authenticate", "Proxy-Authentication-Info",
                                            "Proxy-Authorization"].contains(name) {
            #expect(served.header(name) == value, "\(name)")
        }
    }

    @Test("A qualified no-cache keeps the response reusable without the fields it names")
    func qualifiedNoCache() throws {
        let bench = CacheBench()
        bench.store([("Cache-Control", "no-cache=\"a, B\""), ("a", "1"), ("b", "2"), ("c", "3"), ("Cache-Control", "max-age=3600")])
        let served = try #require(bench.lookup().served)
        #expect(served.header("a") == nil && served.header("b") == nil)
        #expect(served.header("c") == "3")
    }

    @Test("An unqualified no-cache is stored but always validated, even with max-age and Expires")
    func noCacheValidated() {
        for value in ["no-cache", "No-CaChE", "max-age=10000, no-cache", "no-cache=\"\""] {
            let bench = CacheBench()
            bench.store(["Cache-Control": value, "Expires": bench.httpDate(10_000), "ETag": "\"abcd\""].lines)
            #expect(bench.lookup().kind == .validate(["If-None-Match: \"abcd\""]), "\(value)")
        }
    }

    @Test("Vary: * in any spelling is not stored", arguments: ["*", "*, *", ", *", "*, Foo", "Foo, *"])
    func varyStar(value: String) {
        let bench = CacheBench()
        #expect(bench.store(["Cache-Control": "max-age=5000", "Vary": value].lines) == .notStored(.varyStar))
        #expect(CacheBench().store([("Cache-Control", "max-age=5000"), ("Vary", ""), ("Vary", "*")]) == .notStored(.varyStar))
    }

    @Test("A Vary naming 10,000 headers, or one that is not a list of names, is not stored (and is quick)")
    func absurdVary() {
        let names = (0..<10_000).map { "h\($0)" }.joined(separator: ", ")
        let bench = CacheBench()
        #expect(bench.store(["Cache-Control": "max-age=5000", "Vary": names].lines) == .notStored(.varyUnusable))
        let manyLines = (0..<10_000).map { (name: "Vary", value: "h\($0)") }
        #expect(bench.store([("Cache-Control", "max-age=5000")] + manyLines) == .notStored(.varyUnusable))
        #expect(bench.store(["Cache-Control": "max-age=5000", "Vary": "a b"].lines) == .notStored(.varyUnusable))
        #expect(bench.store(["Cache-Control": "max-age=5000", "Vary": String(repeating: "x", count: 129)].lines)
                    == .notStored(.varyUnusable))
        let allowed = (0..<32).map { "h\($0)" }.joined(separator: ",")
        #expect(bench.store(["Cache-Control": "max-age=5000", "Vary": allowed].lines) == .stored)
    }

    @Test("A response to an authorized request is kept in memory, never on disk unless allowed")
    func authorizedMemoryOnly() throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try #require(try HTTPCache.make(.disk(directory: directory, limit: 1 << 20)))
        let bench = CacheBench(cache: cache)
        let authorized = CacheBench.get(headers: [("Authorization", "Bearer secret-token-1")])
        #expect(bench.store(["Cache-Control": "max-age=100"].lines, body: "private body", request: authorized) == .stored)
        #expect(bench.lookup(authorized).kind == .fresh)
        #expect(try diskEntryFiles(directory).isEmpty)
        #expect(try !directoryContains(directory, text: "secret-token-1"))
        #expect(try !directoryContains(directory, text: "private body"))

        let allowed = CacheBench.get(url: "http://example.com/other", headers: [("Authorization", "Bearer secret-token-1")],
                                     diskOptIn: true)
        #expect(bench.store(["Cache-Control": "max-age=100"].lines, body: "opted in", request: allowed) == .stored)
        #expect(try diskEntryFiles(directory).count == 1)
        #expect(try !directoryContains(directory, text: "secret-token-1"), "the credential is only in a digest")
        #expect(try directoryContains(directory, text: "opted in"))
    }

    @Test("Secret request headers and cookies never reach a cache file; the URL is only a digest")
    func nothingSecretOnDisk() throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try #require(try HTTPCache.make(.disk(directory: directory, limit: 1 << 20)))
        let bench = CacheBench(cache: cache)
        let request = CacheBench.get(url: "http://example.com/data?api_key=query-canary-9",
                                     headers: [("X-Api-Key", "header-canary-7"), ("Accept", "text/plain")], secret: ["x-api-key"])
        #expect(bench.store([("Cache-Control", "max-age=100"), ("Vary", "X-Api-Key, Accept"), ("Set-Cookie", "session=cookie-canary-5"),
                             ("X-Api-Key", "echoed-canary-3")], request: request) == .stored)
        #expect(try diskEntryFiles(directory).count == 1)
        for canary in ["query-canary-9", "header-canary-7", "cookie-canary-5", "echoed-canary-3", "example.com"] {
            #expect(try !directoryContains(directory, text: canary), "\(canary) is in a cache file")
        }
        #expect(bench.lookup(request).kind == .fresh)
    }

    @Test("A body larger than a quarter of the limit is not stored")
    func quarterOfLimit() {
        let bench = CacheBench(memoryLimit: 40_000)
        #expect(bench.store(["Cache-Control": "max-age=100"].lines, body: String(repeating: "x", count: 11_000)) == .notStored(.tooLarge))
        #expect(bench.store(["Cache-Control": "max-age=100"].lines, body: String(repeating: "x", count: 9_000)) == .stored)
    }

    @Test("A cache with a limit of 0 stores nothing")
    func limitZero() {
        let bench = CacheBench(memoryLimit: 0)
        #expect(bench.store(["Cache-Control": "max-age=100"].lines, body: "") == .notStored(.disabled))
        #expect(bench.lookup().kind == .miss)
    }
}

/// The entry files of a disk cache directory.
func diskEntryFiles(_ directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(DiskCacheStorage.entrySuffix) }
}

/// Whether any file of `directory` holds `text`'s bytes.
func directoryContains(_ directory: URL, text: String) throws -> Bool {
    let needle = Data(text.utf8)
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        if data.range(of: needle) != nil { return true }
    }
    return false
}
