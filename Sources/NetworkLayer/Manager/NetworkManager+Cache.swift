import Foundation

extension NetworkManager {
    /// Where this manager keeps responses it may reuse (RFC 9111, a private cache). Default ``ResponseCache/none``.
    /// A disk cache that cannot be opened fails each request with ``NetworkError/invalidRequest(_:)``.
    public var cache: ResponseCache {
        get { settings.withLock { $0.responseCache } }
        set {
            guard newValue != cache else { return }
            let store = ResponseCacheStore(newValue)
            settings.withLock {
                $0.responseCache = newValue
                $0.responseCacheStore = store
            }
        }
    }

    /// Removes every response this manager's cache holds (on disk, the files too).
    public func removeCachedResponses() {
        settings.withLock { $0.responseCacheStore }?.enqueue { $0.removeAll() }
    }

    /// Removes every stored response for `request`'s URL as built now (not as an interceptor rewrites it).
    public func removeCachedResponse<Response>(for request: BaseRequest<Response>) {
        let resolved = request.resolved(with: settings.withLock { $0 })
        guard let store = resolved.cache?.store, let url = resolved.cacheURL() else { return }
        store.enqueue { $0.removeAll(forURL: url) }
    }
}
