import Foundation

/// What the pipeline does with a request, as ``HTTPCache/lookup(_:policy:now:)`` decides.
enum CacheLookup: Sendable {
    /// A fresh stored response answers without the network (`.hit`).
    case fresh(CachedResponse)
    /// A stale stored response answers without the network, as the request's `max-stale`, its
    /// policy or the response's `stale-while-revalidate` allows (`.stale`). With `revalidation`,
    /// the request also goes out in the background and its answer goes to `freshen` or `store`.
    case stale(CachedResponse, revalidation: CacheValidation?)
    /// Send the request with these precondition headers added: a 304 goes to `freshen`
    /// (`.revalidated`), any other response to `store` (`.miss`).
    case needsValidation(CacheValidation)
    /// Send the request unchanged and hand the response to `store` (`.miss`).
    case miss
    /// Neither the cache nor the network may answer (`.returnCacheDontLoad` or `only-if-cached`):
    /// fail without sending (RFC 9111 suggests a 504).
    case unavailable(CacheUnavailability)
}

/// Why a request that must not use the network has no stored answer.
enum CacheUnavailability: Equatable, Sendable {
    /// Nothing is stored for this URL and these selecting headers.
    case nothingStored
    /// A response is stored but may not be used without validation (it is stale, or `no-cache`),
    /// and the request says `only-if-cached`.
    case needsValidation
}

/// The precondition headers that make a request validate a stored response (RFC 9111 section 4.3.1).
struct CacheValidation: Sendable {
    /// `If-None-Match` with the stored entity-tags, and `If-Modified-Since` with the stored
    /// `Last-Modified`, each when there is one.
    let headers: CacheHeaderLines
}

/// What ``HTTPCache/freshen(notModified:for:requestTime:responseTime:now:)`` made of a 304.
enum CacheRevalidation: Sendable {
    /// The 304 selected a stored response (RFC 9111 section 4.3.4), whose headers it updated:
    /// serve this one (its stored status, 200) with `cacheStatus == .revalidated`.
    case revalidated(CachedResponse)
    /// The 304 selects no stored response (it names a different strong entity-tag, or the
    /// response was removed meanwhile): nothing was updated. The pipeline repeats the request once
    /// without the cache's precondition headers and serves that answer (`cacheStatus == .miss`).
    case noMatch
}

/// What ``HTTPCache/store(statusCode:headers:body:for:requestTime:responseTime:)`` did with a response.
enum CacheStoreOutcome: Equatable, Sendable {
    /// Stored (replacing the variant it selects, if one was stored).
    case stored
    /// A 200 to a HEAD refreshed the stored GET response it describes (RFC 9111 section 4.3.5).
    case updated
    /// An unsafe method's non-error response invalidated the target URL and the same-origin
    /// `Location` and `Content-Location` (RFC 9111 section 4.4).
    case invalidated
    /// Not stored, for this reason.
    case notStored(CacheRefusal)
}

/// Why a response is not stored.
enum CacheRefusal: Equatable, Sendable {
    /// The cache is off for this storage (a limit of 0).
    case disabled
    /// Only GET responses are stored (HEAD updates them; other methods invalidate).
    case method
    /// The request says `no-store`.
    case requestNoStore
    /// The response says `no-store` (and no `must-understand` of a status understood overrides it).
    case responseNoStore
    /// Not a final status, or one whose caching rules are not understood (`must-understand`).
    case status
    /// 206 Partial Content is never stored.
    case partialContent
    /// Neither explicit freshness, nor `public`/`private`, nor a heuristically cacheable status.
    case notCacheable
    /// `Vary: *`: it could never be selected.
    case varyStar
    /// A `Vary` naming more or longer headers than allowed, or something that is not a name.
    case varyUnusable
    /// The body is larger than a quarter of the storage's limit.
    case tooLarge
    /// A digest could not be computed, or the storage failed to write.
    case storageFailure
}

/// The failure after which ``HTTPCache/staleResponse(for:policy:after:now:)`` is asked for a stale response.
enum CacheFailure: Equatable, Sendable {
    /// The request could not be completed (no connection, a reset, a timeout).
    case transport
    /// The server answered with this status.
    case status(Int)
}
