import Foundation

/// What the pipeline does with a request, as ``HTTPCache/lookup(_:policy:now:)`` decides.
enum CacheLookup: Sendable {
    /// A fresh stored response answers without the network (`.hit`).
    case fresh(CachedResponse)
    /// A stale stored response answers without the network, as `max-stale`, the policy or
    /// `stale-while-revalidate` allows (`.stale`); with `revalidation`, the request also goes out in
    /// the background.
    case stale(CachedResponse, revalidation: CacheValidation?)
    /// Send the request with these precondition headers added: a 304 goes to `freshen`
    /// (`.revalidated`), any other response to `store` (`.miss`).
    case needsValidation(CacheValidation)
    /// Send the request unchanged and hand the response to `store` (`.miss`).
    case miss
    /// Neither the cache nor the network may answer: fail without sending (RFC 9111 section 5.2.1.7: a 504).
    case unavailable(CacheUnavailability)
}

/// Why a request that must not use the network has no stored answer.
enum CacheUnavailability: Equatable, Sendable {
    /// Nothing is stored for this URL and these selecting headers.
    case nothingStored
    /// A response is stored but may not be used without validation, and the request says `only-if-cached`.
    case needsValidation
}

/// The precondition headers that make a request validate a stored response (RFC 9111 section 4.3.1).
struct CacheValidation: Sendable {
    let headers: CacheHeaderLines
}

/// What ``HTTPCache/freshen(notModified:for:requestTime:responseTime:now:)`` made of a 304.
enum CacheRevalidation: Sendable {
    /// The 304 selected a stored response and updated its headers (RFC 9111 section 4.3.4).
    case revalidated(CachedResponse)
    /// The 304 selects no stored response: nothing was updated, and the pipeline repeats the
    /// request once without the cache's precondition headers.
    case noMatch
}

/// What ``HTTPCache/store(statusCode:headers:body:for:requestTime:responseTime:)`` did with a response.
enum CacheStoreOutcome: Equatable, Sendable {
    case stored
    /// A 200 to a HEAD refreshed the stored GET response it describes (RFC 9111 section 4.3.5).
    case updated
    /// An unsafe method's non-error response invalidated the target URL and the same-origin
    /// `Location` and `Content-Location` (RFC 9111 section 4.4).
    case invalidated
    case notStored(CacheRefusal)
}

/// Why a response is not stored.
enum CacheRefusal: Equatable, Sendable {
    case disabled
    /// Only GET responses are stored (HEAD updates them; other methods invalidate).
    case method
    case requestNoStore
    case responseNoStore
    /// Not a final status, or one whose caching rules are not understood (`must-understand`).
    case status
    case partialContent
    /// Neither explicit freshness, nor `public`/`private`, nor a heuristically cacheable status.
    case notCacheable
    case varyStar
    case varyUnusable
    /// The body is larger than a quarter of the storage's limit.
    case tooLarge
    case storageFailure
}

/// The failure after which ``HTTPCache/staleResponse(for:policy:after:now:)`` is asked for a stale response.
enum CacheFailure: Equatable, Sendable {
    case transport
    case status(Int)
}
