import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Serving stale (RFC 5861): after an error when the response allows `stale-if-error`, and at once
/// with a background revalidation within `stale-while-revalidate`.
@Suite("stale-if-error and stale-while-revalidate", .sharing)
struct LiveCacheStaleTests {
    @Test("A 500, 502, 503 or 504 after the response went stale: the stored one, STALE", arguments: [500, 502, 503, 504])
    func serverError(_ status: Int) async throws {
        try await withCacheServer { server in
            let headers = [["Cache-Control", "max-age=1, stale-if-error=600"]]
            try await server.configure("/flaky", ["headers": headers, "body": "flaky {count}"])
            let net = makeCachingManager()
            _ = try await net.text(server, "/flaky")
            try await Task.sleep(for: .seconds(1.6))
            try await server.configure("/flaky", ["headers": headers, "body": "flaky {count}", "fail": ["status": status, "count": 1]])
            let stale = try await net.text(server, "/flaky")
            #expect(stale.status == .stale && stale.text == "flaky 1")
            #expect(try await server.hits("/flaky") == 2)
        }
    }

    @Test("A connection closed without an answer: the stored one, STALE; without stale-if-error, the failure")
    func transportFailure() async throws {
        try await withCacheServer { server in
            try await server.configure("/allowed", ["headers": [["Cache-Control", "max-age=1, stale-if-error=600"]]])
            try await server.configure("/strict", ["headers": [["Cache-Control", "max-age=1"]]])
            let net = makeCachingManager()
            _ = try await net.text(server, "/allowed")
            _ = try await net.text(server, "/strict")
            try await Task.sleep(for: .seconds(1.6))
            try await server.configure("/allowed", ["headers": [["Cache-Control", "max-age=1, stale-if-error=600"]], "fail": ["status": "close"]])
            try await server.configure("/strict", ["headers": [["Cache-Control", "max-age=1"]], "fail": ["status": "close"]])
            let stale = try await net.text(server, "/allowed")
            #expect(stale.status == .stale && stale.text == "/allowed #1")
            await #expect(throws: NetworkError.self) { try await net.text(server, "/strict") }
        }
    }

    @Test("A 4xx is not an error stale-if-error covers; a 503 without it is the 503")
    func notCovered() async throws {
        try await withCacheServer { server in
            try await server.configure("/gone", ["headers": [["Cache-Control", "max-age=1, stale-if-error=600"]]])
            try await server.configure("/plain", ["headers": [["Cache-Control", "max-age=1"]]])
            let net = makeCachingManager()
            _ = try await net.text(server, "/gone")
            _ = try await net.text(server, "/plain")
            try await Task.sleep(for: .seconds(1.6))
            try await server.configure("/gone", ["headers": [["Cache-Control", "max-age=1, stale-if-error=600"]], "fail": ["status": 404]])
            try await server.configure("/plain", ["headers": [["Cache-Control", "max-age=1"]], "fail": ["status": 503]])
            let gone = try await net.response(server, "/gone")
            let plain = try await net.response(server, "/plain")
            #expect(gone.statusCode == 404 && gone.cacheStatus == .miss)
            #expect(plain.statusCode == 503 && plain.cacheStatus == .miss)
        }
    }

    @Test("stale-while-revalidate: the stale response at once, STALE; a conditional request refreshes it behind the caller")
    func staleWhileRevalidate() async throws {
        try await withCacheServer { server in
            try await server.configure("/feed", ["headers": [["Cache-Control", "max-age=1, stale-while-revalidate=600"]], "etag": "\"f\"",
                                                 "notModifiedHeaders": [["ETag", "\"f\""], ["Cache-Control", "max-age=600"]],
                                                 "body": "feed {count}"])
            let net = makeCachingManager()
            _ = try await net.text(server, "/feed")
            try await Task.sleep(for: .seconds(1.6))
            let stale = try await net.text(server, "/feed")
            #expect(stale.status == .stale && stale.text == "feed 1")
            // The revalidation runs in the background: wait for the server to see it.
            var count = try await server.count("/feed")
            for _ in 0..<50 where count.conditional < 1 {
                try await Task.sleep(for: .milliseconds(100))
                count = try await server.count("/feed")
            }
            #expect(count.count == 2 && count.conditional == 1)
            try await Task.sleep(for: .milliseconds(500))  // the 304 reaches the cache
            let fresh = try await net.text(server, "/feed")
            #expect(fresh.status == .hit && fresh.text == "feed 1")
            #expect(try await server.hits("/feed") == 2)
        }
    }
}
