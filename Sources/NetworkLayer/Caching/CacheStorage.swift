import Foundation

/// A place stored responses live: memory (``MemoryCacheStorage``) or a directory
/// (``DiskCacheStorage``). Each is bounded by its limit, evicts the least recently used entries
/// first, and is safe to call from any thread.
protocol CacheStorage: AnyObject, Sendable {
    var limit: Int { get }

    /// Whether it writes to disk (where `Set-Cookie`, secret headers and, without opt-in, responses
    /// to authorized requests never go).
    var isPersistent: Bool { get }

    func summaries(forURL urlKey: SHA256Digest) -> [CacheVariantSummary]

    /// The stored response of a variant, marked as just used; `nil` when it is not stored (or,
    /// on disk, unreadable: then it is removed).
    func load(urlKey: SHA256Digest, variantKey: SHA256Digest, now: Double) -> StoredResponse?

    /// Stores a response, replacing its variant and evicting to stay within the limit; `false`
    /// when not stored.
    @discardableResult
    func save(_ response: StoredResponse, now: Double) -> Bool

    func remove(urlKey: SHA256Digest, variantKey: SHA256Digest)

    func removeAll(forURL urlKey: SHA256Digest)

    func removeAll()

    /// ``summaries(forURL:)`` from memory: no file read or written (a `stat` at most), no wait for a lock.
    /// - Throws: ``CacheWouldBlock`` when that cannot be done.
    func summariesWithoutBlocking(forURL urlKey: SHA256Digest) throws(CacheWouldBlock) -> [CacheVariantSummary]

    /// ``load(urlKey:variantKey:now:)`` answered the same way.
    /// - Throws: ``CacheWouldBlock`` when that cannot be done.
    func loadWithoutBlocking(urlKey: SHA256Digest, variantKey: SHA256Digest, now: Double) throws(CacheWouldBlock) -> StoredResponse?
}

/// A tier cannot answer without file work or waiting for a lock: the caller asks again where it
/// may block (a disk cache's queue).
struct CacheWouldBlock: Error {}

extension CacheStorage {
    /// The largest response it takes: a quarter of its limit, so that one response cannot
    /// push out everything else.
    var largestEntry: Int { limit / 4 }
}
