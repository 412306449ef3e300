import Foundation

/// Where a manager keeps the HTTP responses it may reuse: nowhere (the default), in memory, or in a
/// directory that survives restarts.
///
/// A private cache as RFC 9111 defines it; a request's ``CachePolicy`` chooses how it uses it.
/// Both kinds evict the least recently used responses first to stay within `limit` bytes, and
/// never store a response larger than a quarter of it.
///
/// On disk: files of mode 0600 in a directory of mode 0700, written under a temporary name and
/// renamed, shareable by processes through a lock file. No credential is written to disk: entries
/// are keyed by SHA-256 digests, `Set-Cookie` is not stored, and responses to requests with
/// `Authorization` stay in memory unless the provider opts in.
public enum ResponseCache: Sendable, Hashable {
    /// No cache: every request goes to the network, and `cacheStatus` is `nil`. The default.
    case none
    /// A cache in this process's memory of at most `limit` bytes.
    case memory(limit: Int)
    /// A cache in `directory` (created if missing) of at most `limit` bytes on disk; 0 stores nothing
    /// and empties it. Responses to authorized requests that may not go to disk are kept in a memory
    /// cache of at most 16 MB (or `limit`, if smaller) beside it.
    case disk(directory: URL, limit: Int)
}
