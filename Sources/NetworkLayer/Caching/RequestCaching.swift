import Foundation

/// How one request uses its manager's response cache, decided when it resolves. A request has
/// none (`cacheStatus == nil`) without a cache or when mocks answer it: mock mode never touches it.
struct RequestCaching: Sendable {
    /// The manager's cache.
    let store: ResponseCacheStore
    let policy: CachePolicy
    /// Whether a response to a request carrying credentials may be written to disk.
    let storesAuthorizedResponsesOnDisk: Bool
    /// Whether the request goes around the cache (a stream, a download, a streamed upload): sent
    /// unchanged as ``CacheStatus/miss``, though an unsafe method's success still invalidates its
    /// URL (RFC 9111 section 4.4), so an upload never leaves a stale copy behind.
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
