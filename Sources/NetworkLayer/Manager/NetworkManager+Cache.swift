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
    /// With a cache, a fresh stored response answers a `GET` without the network (`.hit`), a stale
    /// one is revalidated with `If-None-Match` / `If-Modified-Since` (a `304` gives back the stored
    /// status and body, `.revalidated`), and what the server allows is stored (`.miss`). Each
    /// request chooses how it uses the cache with ``BaseRequest/cachePolicy`` (or its provider's).
    /// The cache is a step of every hop: a cached `301`/`308` is followed from the cache, each
    /// hop is stored under its own URL, and retries, the token refresh and validation see a
    /// cached response as they see one from the network. Mock mode never reads or writes it;
    /// streams, downloads to files and uploads from a sequence, a file or a form go around it.
    ///
    /// Setting a different value starts a new cache (``ResponseCache/disk(directory:limit:)``
    /// opens its directory on a queue of its own, never on the caller's thread; a directory
    /// that cannot be created or opened fails each request with
    /// ``NetworkError/invalidRequest(_:)`` saying why, until the setting is corrected). Setting
    /// the same value again keeps the cache. Safe to set from any thread; a request uses the
    /// cache in force when it starts.
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

    /// Removes every response this manager's cache holds (on disk, the files too). Requests
    /// started after this call do not see them; nothing happens without a cache.
    ///
    /// Returns at once: a disk cache does the work on its own queue, before any lookup of a
    /// request started later.
    public func removeCachedResponses() {
        settings.withLock { $0.responseCacheStore }?.enqueue { $0.removeAll() }
    }

    /// Removes every stored response for `request`'s URL (all its variants, whatever credentials
    /// they were stored with), as the request is built now: its provider's scheme, host, port and
    /// base path, its endpoint and `params` (an API key the provider's authentication puts in the
    /// query included). A URL an interceptor rewrites when the request is sent is not known here.
    /// Nothing happens without a cache, or when the request's URL cannot be built.
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
