import Foundation

/// How one request uses its manager's response cache, decided when it resolves: which cache, under
/// which ``CachePolicy`` (the request's, else its provider's, else ``CachePolicy/useProtocol``),
/// whether responses to its authorized requests may go to disk (the provider's
/// ``ServiceProvider/cachesAuthorizedResponsesOnDisk``), and whether it reads and writes the
/// cache at all.
///
/// A request has none (`ResolvedRequest.cache == nil`, `cacheStatus == nil`) when its manager has
/// no cache or when mocks answer it: mock mode never reads or writes the cache.
struct RequestCaching: Sendable {
    /// The manager's cache.
    let store: ResponseCacheStore
    let policy: CachePolicy
    /// Whether a response to a request carrying credentials may be written to disk.
    let storesAuthorizedResponsesOnDisk: Bool
    /// Whether the request goes around the cache: a streaming response, a download to a file, a
    /// body streamed from a sequence, a file or a multipart form. It goes to the network unchanged
    /// and is marked ``CacheStatus/miss``; an unsafe method's success still invalidates what the
    /// cache holds for its URL (RFC 9111 section 4.4), so an upload never leaves a stale copy behind.
    let isBypassed: Bool
}

extension RequestBody {
    /// Whether the body is an upload the cache stays out of: streamed from a sequence, a file or
    /// a multipart form (too large to keep, or read once).
    var isUpload: Bool {
        switch content {
        case .file, .multipart, .stream: true
        case .bytes, .encodable: false
        }
    }
}
