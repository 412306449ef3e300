import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Each ``CachePolicy``, set on the request or on its provider.
@Suite("Cache policies", .sharing)
struct LiveCachePolicyTests {
    @Test(".useProtocol is the default: fresh from the cache, stale validated")
    func useProtocol() async throws {
        try await withCacheServer { server in
            try await server.configure("/p", ["headers": [["Cache-Control", "max-age=600"]]])
            let net = makeCachingManager()
            _ = try await net.text(server, "/p")
            #expect(try await net.text(server, "/p", policy: .useProtocol).status == .hit)
            #expect(try await server.hits("/p") == 1)
        }
    }

    @Test(".reloadIgnoringCache: always the network, and what comes back is stored")
    func reloadIgnoringCache() async throws {
        try await withCacheServer { server in
            try await server.configure("/r", ["headers": [["Cache-Control", "max-age=600"]], "body": "r {count}"])
            let net = makeCachingManager()
            _ = try await net.text(server, "/r")
            let reloaded = try await net.text(server, "/r", policy: .reloadIgnoringCache)
            let plain = try await net.text(server, "/r")
            #expect(reloaded.status == .miss && reloaded.text == "r 2")
            #expect(plain.status == .hit && plain.text == "r 2")
            #expect(try await server.count("/r").conditional == 0)
        }
    }

    @Test(".returnCacheElseLoad: a stale stored response without validation; the network only when nothing is stored")
    func returnCacheElseLoad() async throws {
        try await withCacheServer { server in
            try await server.configure("/e", ["headers": [["Cache-Control", "max-age=0"]], "etag": "\"e\"", "body": "e {count}"])
            let net = makeCachingManager()
            let loaded = try await net.text(server, "/e", policy: .returnCacheElseLoad)
            let stale = try await net.text(server, "/e", policy: .returnCacheElseLoad)
            #expect(loaded.status == .miss && stale.status == .stale && stale.text == "e 1")
            #expect(try await server.hits("/e") == 1)
        }
    }

    @Test(".returnCacheDontLoad: what is stored, fresh or stale, or a not-found-like error; never the network")
    func returnCacheDontLoad() async throws {
        try await withCacheServer { server in
            try await server.configure("/d", ["headers": [["Cache-Control", "max-age=0"]], "body": "d {count}"])
            let net = makeCachingManager()
            let error = await #expect(throws: NetworkError.self) { try await net.text(server, "/d", policy: .returnCacheDontLoad) }
            #expect(error?.isCacheUnavailable == true)
            #expect(error?.errorDescription?.contains(".returnCacheDontLoad forbids the network") == true)
            #expect(try await server.hits("/d") == 0)
            _ = try await net.text(server, "/d")
            let offline = try await net.text(server, "/d", policy: .returnCacheDontLoad)
            #expect(offline.status == .stale && offline.text == "d 1")
            #expect(try await server.hits("/d") == 1)
        }
    }

    @Test("The provider's policy applies to its requests; a request's own wins")
    func providerPolicy() async throws {
        try await withCacheServer { server in
            try await server.configure("/offline", ["headers": [["Cache-Control", "max-age=600"]]])
            let net = makeCachingManager()
            let offline = PolicyProvider(port: server.port, cachePolicy: .returnCacheDontLoad)
            await #expect(throws: NetworkError.self) { try await net.perform(CachedText(server, "/offline", provider: offline)) }
            let loaded = try await net.performWithResponse(CachedText(server, "/offline", policy: .useProtocol, provider: offline))
            let stored = try await net.performWithResponse(CachedText(server, "/offline", provider: offline))
            #expect(loaded.response.cacheStatus == .miss && stored.response.cacheStatus == .hit)
            #expect(try await server.hits("/offline") == 1)
        }
    }
}

/// A loopback provider with a cache policy.
struct PolicyProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var cachePolicy: CachePolicy?
}
