import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The caller's own `Cache-Control` request header is honoured (RFC 9111 section 5.2.1).
@Suite("Request directives set as a Cache-Control header", .sharing)
struct LiveCacheRequestDirectiveTests {
    /// A manager whose cache holds `path` (fresh for 10 minutes, validated with an ETag).
    func primed(_ server: CacheServer, _ path: String, maxAge: Int = 600) async throws -> NetworkManager {
        try await server.configure(path, ["headers": [["Cache-Control", "max-age=\(maxAge)"]], "etag": "\"t\"", "body": "\(path) {count}"])
        let net = makeCachingManager()
        _ = try await net.text(server, path)
        return net
    }

    @Test("no-cache: a fresh stored response is validated with the server first")
    func noCache() async throws {
        try await withCacheServer { server in
            let net = try await primed(server, "/a")
            let validated = try await net.text(server, "/a", headers: ["Cache-Control": "no-cache"])
            #expect(validated.status == .revalidated && validated.text == "/a 1")
            #expect(try await server.count("/a").conditional == 1)
        }
    }

    @Test("no-store: the network answers, and its response is not stored")
    func noStore() async throws {
        try await withCacheServer { server in
            let net = try await primed(server, "/b")
            let unstored = try await net.text(server, "/b", headers: ["Cache-Control": "no-store"])
            let plain = try await net.text(server, "/b")
            #expect(unstored.status == .miss && unstored.text == "/b 2")
            #expect(plain.status == .hit && plain.text == "/b 1")
            #expect(try await server.count("/b").conditional == 0)
        }
    }

    @Test("max-age: a stored response older than the request allows is validated; max-age=0 always")
    func maxAge() async throws {
        try await withCacheServer { server in
            let net = try await primed(server, "/c")
            try await Task.sleep(for: .seconds(1.1))
            let young = try await net.text(server, "/c", headers: ["Cache-Control": "max-age=60"])
            let zero = try await net.text(server, "/c", headers: ["Cache-Control": "max-age=0"])
            #expect(young.status == .hit && zero.status == .revalidated)
        }
    }

    @Test("max-stale: a stale stored response is served without the network, within the staleness allowed")
    func maxStale() async throws {
        try await withCacheServer { server in
            let net = try await primed(server, "/d", maxAge: 1)
            try await Task.sleep(for: .seconds(1.6))
            let stale = try await net.text(server, "/d", headers: ["Cache-Control": "max-stale=60"])
            let any = try await net.text(server, "/d", headers: ["Cache-Control": "max-stale"])
            #expect(stale.status == .stale && stale.text == "/d 1" && any.status == .stale)
            #expect(try await server.hits("/d") == 1)
            let tooStale = try await net.text(server, "/d", headers: ["Cache-Control": "max-stale=0"])
            #expect(tooStale.status == .revalidated)
        }
    }

    @Test("min-fresh: a response that will not stay fresh that long is validated")
    func minFresh() async throws {
        try await withCacheServer { server in
            let net = try await primed(server, "/e", maxAge: 60)
            let enough = try await net.text(server, "/e", headers: ["Cache-Control": "min-fresh=30"])
            let notEnough = try await net.text(server, "/e", headers: ["Cache-Control": "min-fresh=120"])
            #expect(enough.status == .hit && notEnough.status == .revalidated)
        }
    }

    @Test("only-if-cached: a stored response or a not-found-like error saying why, never the network")
    func onlyIfCached() async throws {
        try await withCacheServer { server in
            let net = try await primed(server, "/f")
            let stored = try await net.text(server, "/f", headers: ["Cache-Control": "only-if-cached"])
            #expect(stored.status == .hit)
            let error = await #expect(throws: NetworkError.self) {
                try await net.text(server, "/never-fetched", headers: ["Cache-Control": "only-if-cached"])
            }
            guard case .notFound(let context)? = error else { Issue.record("not .notFound: \(String(describing: error))"); return }
            #expect(context.statusCode == nil && context.response == nil)
            #expect(error?.errorDescription?.contains("Nothing in the response cache answers the request") == true)
            #expect(error?.errorDescription?.contains("only-if-cached") == true)
            #expect(error?.errorDescription?.contains("/never-fetched") == true)
            #expect(error?.recoverySuggestion?.contains("Nothing was sent") == true)
            #expect(try await server.hits("/never-fetched") == 0)
        }
    }
}
