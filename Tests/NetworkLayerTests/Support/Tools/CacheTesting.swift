import Foundation
@testable import NetworkLayer

/// A manager of the test's own with a response cache (8 MB in memory unless told otherwise).
func makeCachingManager(_ cache: ResponseCache = .memory(limit: 8 << 20), log: LogCollector? = nil,
                        entries: LogEntryCollector? = nil) -> NetworkManager {
    let net = makeManager(log: log, entries: entries)
    net.cache = cache
    return net
}

/// `GET path` of the cache server as text, with its response.
final class CachedText: BaseRequest<String> {
    init(_ server: CacheServer, _ path: String, method: HTTPMethod = .get, headers: [String: String] = [:],
         policy: CachePolicy? = nil, provider: (any ServiceProvider)? = nil, anyStatus: Bool = false) {
        super.init(serviceProvider: provider ?? server.provider(), endpoint: path)
        httpMethod = method
        additionalHeaders = headers
        cachePolicy = policy
        requestTimeout = .seconds(TestTimeout.seconds(10))
        if anyStatus {
            acceptableStatusCodes = 100..<600
            redirectPolicy = RedirectPolicy.none
        }
    }
}

extension NetworkManager {
    /// The text of `path` and where it came from.
    func text(_ server: CacheServer, _ path: String, headers: [String: String] = [:],
              policy: CachePolicy? = nil) async throws -> (text: String, status: CacheStatus?) {
        let (text, response) = try await performWithResponse(CachedText(server, path, headers: headers, policy: policy))
        return (text, response.cacheStatus)
    }

    /// The response to `GET path`, whatever its status (redirects not followed).
    func response(_ server: CacheServer, _ path: String, method: HTTPMethod = .get, headers: [String: String] = [:],
                  policy: CachePolicy? = nil) async throws -> HTTPResponse {
        try await performWithResponse(CachedText(server, path, method: method, headers: headers, policy: policy, anyStatus: true)).response
    }
}

extension CacheServer {
    /// How many requests reached `path`.
    func hits(_ path: String) async throws -> Int { try await count(path).count }
}
