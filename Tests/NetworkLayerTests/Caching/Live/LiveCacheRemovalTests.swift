import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `Net.removeCachedResponses()` and `Net.removeCachedResponse(for:)`.
@Suite("Removing stored responses", .sharing)
struct LiveCacheRemovalTests {
    @Test("removeCachedResponses() forgets everything, in memory and on disk", arguments: ["memory", "disk"])
    func removeAll(_ kind: String) async throws {
        try await withCacheServer { server in
            try await server.configure("/one", ["headers": [["Cache-Control", "max-age=600"]]])
            try await server.configure("/two", ["headers": [["Cache-Control", "max-age=600"]]])
            let directory = temporaryCacheDirectory("removeAll")
            defer { try? FileManager.default.removeItem(at: directory) }
            let net = makeCachingManager(kind == "disk" ? .disk(directory: directory, limit: 4 << 20) : .memory(limit: 4 << 20))
            _ = try await net.text(server, "/one")
            _ = try await net.text(server, "/two")
            net.removeCachedResponses()
            let one = try await net.text(server, "/one")
            let two = try await net.text(server, "/two")
            #expect(one.status == .miss && two.status == .miss)
        }
    }

    @Test("removeCachedResponse(for:) forgets that request's URL (its query and an API key in it included), nothing else")
    func removeOne() async throws {
        try await withCacheServer { server in
            try await server.configure("/list", ["headers": [["Cache-Control", "max-age=600"]]])
            let net = makeCachingManager()
            let provider = AuthProvider(port: server.port, authentication: .apiKey("query-key", queryItem: "key"))
            func request(_ page: Int) -> CachedText {
                let request = CachedText(server, "/list", provider: provider)
                request.params = ["page": page]
                return request
            }
            _ = try await net.perform(request(1))
            _ = try await net.perform(request(2))
            net.removeCachedResponse(for: request(1))
            let first = try await net.performWithResponse(request(1)).response
            let second = try await net.performWithResponse(request(2)).response
            #expect(first.cacheStatus == .miss && second.cacheStatus == .hit)
            #expect(try await server.count("/list").requests.last?.headers["Host"] != nil)
        }
    }

    @Test("Without a cache, removing does nothing and does not fail")
    func withoutCache() {
        let net = makeManager()
        net.removeCachedResponses()
        net.removeCachedResponse(for: TestRequest<String>(TestProvider(host: "example.com", httpScheme: .https), "/x"))
        #expect(net.cache == .none)
    }
}
