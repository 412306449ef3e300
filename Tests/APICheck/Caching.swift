// HTTP caching's public API (issue 26), exactly as the issue writes it.

import Foundation
import NetworkLayer

struct Catalogue: ServiceProvider {
    var host: String { "catalogue.example.com" }
    var httpScheme: HTTPScheme { .https }
    var cachePolicy: CachePolicy? { .returnCacheElseLoad }
    var cachesAuthorizedResponsesOnDisk: Bool { true }
}

final class CatalogueRequest: BaseRequest<[String]> {
    init() {
        super.init(serviceProvider: Catalogue(), endpoint: "/items")
    }
}

func checkCachingAPI(cachesDirectory url: URL) async throws {
    Net.cache = .memory(limit: 32 << 20)                   // default: .none
    Net.cache = .disk(directory: url, limit: 512 << 20)    // survives restarts; LRU eviction by size
    Net.cache = .none

    let request = CatalogueRequest()
    request.cachePolicy = .useProtocol                     // default: RFC 9111
    request.cachePolicy = .reloadIgnoringCache             // always the network (stores what it may)
    request.cachePolicy = .returnCacheElseLoad             // stale is fine; network only when nothing is stored
    request.cachePolicy = .returnCacheDontLoad             // offline: stored or `.notFound`-like error, never the network
    let providerPolicy: CachePolicy? = Catalogue().cachePolicy
    let onDisk: Bool = Catalogue().cachesAuthorizedResponsesOnDisk

    let (value, response) = try await Net.performWithResponse(request)
    let status: CacheStatus? = response.cacheStatus        // .miss, .hit, .revalidated, .stale; nil without a cache
    Net.removeCachedResponses()
    Net.removeCachedResponse(for: request)

    let current: ResponseCache = Net.cache
    let entryStatus: (NetworkLogEntry) -> CacheStatus? = { $0.cacheStatus }
    print(value.count, describe(status), providerPolicy as Any, onDisk, current, entryStatus)
}
