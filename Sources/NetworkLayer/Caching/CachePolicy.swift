import Foundation

/// How one request uses the manager's ``ResponseCache``.
///
/// Set it on a request (`request.cachePolicy`) or for all of a provider's requests (the
/// provider's `cachePolicy`); the request's wins. With `Net.cache = .none` it has no effect.
public enum CachePolicy: Sendable, Hashable {
    /// RFC 9111 (the default): a fresh stored response answers without the network, a stale one
    /// is revalidated, and the request's own `Cache-Control` directives (`no-cache`, `no-store`,
    /// `max-age`, `max-stale`, `min-fresh`, `only-if-cached`) are honoured.
    case useProtocol
    /// Always the network, never a stored response; what comes back is stored if it may be.
    case reloadIgnoringCache
    /// A stored response whenever there is one, fresh or stale and without validation; the
    /// network only when nothing is stored.
    case returnCacheElseLoad
    /// Offline: a stored response, fresh or stale, or an error when there is none; never the network.
    case returnCacheDontLoad
}
