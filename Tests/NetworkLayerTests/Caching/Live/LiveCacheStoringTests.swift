import Foundation
import Testing
@testable import NetworkLayer

/// What the cache stores when it sits in the pipeline, proved by the server's counts: a response
/// served from the cache is a request the server never saw.
@Suite("The response cache stores what RFC 9111 allows")
struct LiveCacheStoringTests {
    @Test("A fresh 200 answers the next request without the network: MISS, then HIT with the same body")
    func freshResponseIsServedFromCache() async throws {
        try await withCacheServer { server in
            try await server.configure("/fresh", ["headers": [["Cache-Control", "max-age=60"]], "body": "fresh {count}"])
            let net = makeCachingManager()
            let first = try await net.text(server, "/fresh")
            let second = try await net.text(server, "/fresh")
            #expect(first.text == "fresh 1" && first.status == .miss)
            #expect(second.text == "fresh 1" && second.status == .hit)
            #expect(try await server.hits("/fresh") == 1)
        }
    }
}
