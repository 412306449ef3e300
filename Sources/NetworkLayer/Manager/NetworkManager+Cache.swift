import Foundation

extension NetworkManager {
    /// Where this manager keeps the HTTP responses it may reuse (RFC 9111, a private cache).
    /// Default ``ResponseCache/none``: every request goes to the network, and
    /// ``HTTPResponse/cacheStatus`` is `nil`.
    ///
    /// ```swift
    /// Net.cache = .memory(limit: 32 << 20)                                 // this process only
    /// Net.cache = .disk(directory: cachesDirectory, limit: 512 << 20)      // survives restarts
    /// let (value, response) = try await Net.performWithResponse(CatalogueRequest())
    /// response.cacheStatus                                                 // .miss, then .hit while fresh
    /// ```
    ///
    /// A fresh stored response answers a `GET` (`.hit`), a stale one is revalidated (a `304` gives
    /// back the stored one, `.revalidated`), and what the server allows is stored (`.miss`); each
    /// request chooses with ``BaseRequest/cachePolicy``. The cache is a step of every hop, so
    /// redirects, retries, the token refresh and validation see a cached response as one from the
    /// network. Mock mode, streams, downloads to files and streamed uploads go around it.
    ///
    /// A different value starts a new cache; the same value keeps it. A disk cache opens its
    /// directory on its own queue; one that cannot be opened fails each request with
    /// ``NetworkError/invalidRequest(_:)`` until the setting is corrected. Safe to set from any
    /// thread; a request uses the cache in force when it starts.
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

    /// Removes every response this manager's cache holds (on disk, the files too). Returns at
    /// once; a request started later does not see them. Nothing happens without a cache.
    public func removeCachedResponses() {
        settings.withLock { $0.responseCacheStore }?.enqueue { $0.removeAll() }
    }

    /// Removes every stored response (all variants) for `request`'s URL as it is built now, from
    /// its provider, endpoint and `params`; a URL an interceptor rewrites later is not known here.
    /// Nothing happens without a cache, or when the URL cannot be built.
    ///
    /// ```swift
    /// Net.removeCachedResponse(for: ProfileRequest())   // after changing the profile elsewhere
    /// ```
    public func removeCachedResponse<Response>(for request: BaseRequest<Response>) {
        let resolved = request.resolved(with: settings.withLock { $0 })
        guard let store = resolved.cache?.store, let url = resolved.cacheURL() else { return }
        store.enqueue { $0.removeAll(forURL: url) }
    }
}
