import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// An `ETag` without quotes (httpbin's `/etag/{etag}`, many a hand-written server): browsers keep
/// it and send it back as received; so does the cache, which did not store such a response usefully.
@Suite("An unquoted ETag validates like a quoted one", .sharing)
struct LiveCacheUnquotedETagTests {
    @Test("httpbin's /etag/{etag} is stored, revalidated with If-None-Match as received, and served REVALIDATED")
    func httpbinETag() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let log = LogCollector()
        let net = makeCachingManager(log: log)
        let first = try await net.performWithResponse(TestRequest<JSONValue>(httpbin.provider(), "/etag/abc123", timeout: 10))
        let second = try await net.performWithResponse(TestRequest<JSONValue>(httpbin.provider(), "/etag/abc123", timeout: 10))
        #expect(first.response.value(forHeader: "ETag") == "abc123")
        #expect(first.response.cacheStatus == .miss)
        #expect(second.response.cacheStatus == .revalidated, "httpbin answers 304 only to If-None-Match: abc123")
        #expect(second.response.statusCode == 200 && second.value == first.value)
        #expect(log.text.contains("(revalidating the stored response: If-None-Match: abc123)"), "\(log.text)")
    }

    @Test("Unquoted tags are kept as sent; those that could not be sent back as one tag are not validators",
          arguments: [("abc123", true), ("W/abc", true), ("a-b_c.d~1", true), ("\"quoted\"", true), ("W/\"weak\"", true),
                      ("", false), ("a b", false), ("a,b", false), ("a\"b", false), ("\"open", false), ("a\u{7F}", false)])
    func unquotedValidators(tag: String, validates: Bool) {
        #expect((CacheFreshness.validEntityTag(tag) == tag) == validates)
        #expect(CacheFreshness.validEntityTag(tag) == nil || validates)
        let bench = CacheBench()
        #expect(bench.store([("ETag", tag), ("Cache-Control", "max-age=0")]) == .stored)
        #expect(LookupKind(bench.lookup()) == (validates ? .validate(["If-None-Match: \(tag)"]) : .miss))
    }

    @Test("A 304 with the unquoted tag revalidates the stored response; another tag does not")
    func notModifiedWithUnquotedTag() {
        let bench = CacheBench()
        bench.store([("ETag", "v1"), ("Cache-Control", "max-age=0"), ("X-Version", "1")])
        guard case .noMatch = bench.freshen([("ETag", "v2")]) else { Issue.record("another tag revalidated"); return }
        guard case .revalidated(let served) = bench.freshen([("ETag", "v1"), ("X-Version", "2")]) else {
            Issue.record("the same unquoted tag did not revalidate")
            return
        }
        #expect(served.headers.firstValue(named: "x-version") == "2")
    }

    @Test("The log's curl line for a revalidation is copy-as-curl's; the validators are named in its note and headers")
    func logAndCopyAsCurlAgree() async throws {
        try await withCacheServer { server in
            try await server.configure("/agree", ["headers": [["Cache-Control", "max-age=0"]], "etag": "\"a1\""])
            let log = LogCollector()
            let net = makeCachingManager(log: log)
            _ = try await net.text(server, "/agree")
            let second = try await net.text(server, "/agree")
            #expect(second.status == .revalidated)
            let copied = try await net.curlCommand(for: CachedText(server, "/agree"))
            let attempts = log.all.filter { $0.contains("] → ") }
            let curlLines = attempts.map { entry in entry.split(separator: "\n").first { $0.hasPrefix("  $ ") }.map { String($0.dropFirst(4)) } }
            #expect(curlLines.count == 2 && curlLines.allSatisfy { $0 == copied }, "log: \(curlLines), copy-as-curl: \(copied)")
            #expect(attempts.last?.contains("(revalidating the stored response: If-None-Match: \"a1\")") == true)
            #expect(attempts.last?.contains("  If-None-Match: \"a1\"") == true, "the headers list what went out")
        }
    }
}
