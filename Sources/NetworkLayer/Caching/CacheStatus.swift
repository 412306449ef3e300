import Foundation

/// Where a response came from, when the manager has a ``ResponseCache`` (`response.cacheStatus`;
/// `nil` without a cache). The log shows it on the response line as `MISS`, `HIT`,
/// `REVALIDATED` or `STALE`.
public enum CacheStatus: Sendable, Hashable {
    /// From the network: nothing usable was stored (or the request could not use the cache).
    case miss
    /// From the cache, fresh, without contacting the server.
    case hit
    /// From the cache after the server confirmed it with `304 Not Modified`: the stored status
    /// and body, with the headers the 304 updated.
    case revalidated
    /// From the cache although stale: the network failed and the response allows `stale-if-error`,
    /// or the request or its policy accepted a stale response.
    case stale
}
