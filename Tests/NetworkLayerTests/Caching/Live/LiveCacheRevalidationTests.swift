import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Stale stored responses are validated with the server (RFC 9111 section 4.3): a `304` gives the
/// stored response back as its stored status, through the same validation and decoding.
@Suite("A stale response is revalidated with If-None-Match and If-Modified-Since", .sharing)
struct LiveCacheRevalidationTests {
    struct Item: Decodable, Sendable, Equatable {
        let name: String
        let version: Int
    }

    final class ItemRequest: BaseRequest<Item> {
        init(_ server: CacheServer, _ path: String, validator: (@Sendable (HTTPResponse) throws -> Void)? = nil) {
            super.init(serviceProvider: server.provider(), endpoint: path)
            self.validator = validator
            requestTimeout = .seconds(10)
        }
    }

    @Test("ETag: If-None-Match goes out (a weak tag compared weakly); the 304 gives back the stored 200 and body, REVALIDATED")
    func entityTag() async throws {
        try await withCacheServer { server in
            try await server.configure("/tagged", ["headers": [["Cache-Control", "max-age=0"]], "etag": "W/\"v1\"", "body": "tagged {count}"])
            let net = makeCachingManager()
            let first = try await net.performWithResponse(CachedText(server, "/tagged"))
            let second = try await net.performWithResponse(CachedText(server, "/tagged"))
            #expect(first.value == "tagged 1" && first.response.cacheStatus == .miss)
            #expect(second.value == "tagged 1" && second.response.statusCode == 200 && second.response.cacheStatus == .revalidated)
            let count = try await server.count("/tagged")
            #expect(count.count == 2 && count.conditional == 1)
            #expect(count.requests.last?.headers["If-None-Match"] == "W/\"v1\"")
            #expect(second.response.metrics != nil, "the 304's transfer")
        }
    }

    @Test("Last-Modified: If-Modified-Since goes out with the stored date; a 304 revalidates")
    func lastModified() async throws {
        try await withCacheServer { server in
            let modified = "Tue, 14 Nov 2023 22:13:20 GMT"
            try await server.configure("/dated", ["headers": [["Cache-Control", "no-cache"]], "lastModified": modified])
            let net = makeCachingManager()
            _ = try await net.text(server, "/dated")
            let second = try await net.text(server, "/dated")
            #expect(second.status == .revalidated && second.text == "/dated #1")
            let count = try await server.count("/dated")
            #expect(count.requests.last?.headers["If-Modified-Since"] == modified)
            #expect(count.requests.last?.headers["If-None-Match"] == nil)
        }
    }

    @Test("A 304's headers update the stored response (not Content-Length): its new max-age makes the next request a HIT")
    func notModifiedUpdatesHeaders() async throws {
        try await withCacheServer { server in
            try await server.configure("/updated", ["headers": [["Cache-Control", "max-age=0"], ["X-Version", "1"]], "etag": "\"e\"",
                                                    "notModifiedHeaders": [["ETag", "\"e\""], ["Cache-Control", "max-age=600"],
                                                                           ["X-Version", "2"], ["Content-Length", "999"]]])
            let net = makeCachingManager()
            _ = try await net.text(server, "/updated")
            let revalidated = try await net.response(server, "/updated")
            let hit = try await net.response(server, "/updated")
            #expect(revalidated.cacheStatus == .revalidated && revalidated.value(forHeader: "X-Version") == "2")
            #expect(revalidated.value(forHeader: "Content-Length") == "\(revalidated.body.count)")
            #expect(hit.cacheStatus == .hit && hit.value(forHeader: "X-Version") == "2" && hit.statusCode == 200)
            #expect(try await server.hits("/updated") == 2)
        }
    }

    @Test("A revalidated response goes through the request's validator and is decoded like a fresh one")
    func validationAndDecodingRun() async throws {
        try await withCacheServer { server in
            try await server.configure("/item", ["headers": [["Cache-Control", "no-cache"], ["Content-Type", "application/json"]],
                                                 "etag": "\"i\"", "body": "{\"name\": \"lamp\", \"version\": {count}}"])
            let net = makeCachingManager()
            let seen = CallRecorder<String>()
            let validator: @Sendable (HTTPResponse) throws -> Void = { response in
                seen.record("\(response.statusCode) \(response.cacheStatus.map { "\($0)" } ?? "nil")")
            }
            let first = try await net.perform(ItemRequest(server, "/item", validator: validator))
            let second = try await net.perform(ItemRequest(server, "/item", validator: validator))
            #expect(first == Item(name: "lamp", version: 1) && second == first)
            #expect(seen.values == ["200 miss", "200 revalidated"])
            // A validator that refuses it refuses the revalidated response as any other.
            let refused = await #expect(throws: NetworkError.self) {
                try await net.perform(ItemRequest(server, "/item") { response in
                    if response.cacheStatus == .revalidated { throw CacheTestError.refused }
                })
            }
            #expect(refused?.underlyingError is CacheTestError)
            #expect(refused?.context?.response?.cacheStatus == .revalidated)
        }
    }

    @Test("A 304 naming a version the cache does not hold: asked again without validators, MISS")
    func notModifiedForAnotherVersion() async throws {
        try await withCacheServer { server in
            try await server.configure("/changed", ["headers": [["Cache-Control", "max-age=0"]], "etag": "\"v1\"",
                                                    "notModifiedHeaders": [["ETag", "\"v2\""]], "body": "changed {count}"])
            let net = makeCachingManager()
            _ = try await net.text(server, "/changed")
            let again = try await net.text(server, "/changed")
            #expect(again.status == .miss && again.text == "changed 3")
            let count = try await server.count("/changed")
            #expect(count.count == 3 && count.conditional == 1)
            #expect(count.requests.last?.headers["If-None-Match"] == nil)
        }
    }

    @Test("A 304 to the caller's own If-None-Match passes through untouched; the stored response stays as it was")
    func callersOwnConditionalRequest() async throws {
        try await withCacheServer { server in
            try await server.configure("/own", ["headers": [["Cache-Control", "max-age=600"]], "etag": "\"o\"", "body": "own {count}"])
            let net = makeCachingManager()
            _ = try await net.text(server, "/own")
            let conditional = try await net.response(server, "/own", headers: ["If-None-Match": "\"o\""])
            #expect(conditional.statusCode == 304 && conditional.cacheStatus == .miss && conditional.body.isEmpty)
            // Under the default statuses a 304 is an error, as without a cache.
            let error = await #expect(throws: NetworkError.self) {
                try await net.perform(CachedText(server, "/own", headers: ["If-None-Match": "\"o\""]))
            }
            #expect(error?.context?.statusCode == 304)
            let plain = try await net.text(server, "/own")
            #expect(plain.status == .hit && plain.text == "own 1")
            #expect(try await server.hits("/own") == 3)
        }
    }
}

enum CacheTestError: Error { case refused }
