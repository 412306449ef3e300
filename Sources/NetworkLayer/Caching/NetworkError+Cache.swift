import Foundation

/// Why a request that may not use the network has no answer in the cache: the
/// ``NetworkError/Context/underlyingError`` of the ``NetworkError/notFound(_:)`` it fails with.
struct CacheUnavailableError: Error, CustomStringConvertible {
    let description: String
}

extension NetworkError {
    /// The failure of a request only the cache may answer (``CachePolicy/returnCacheDontLoad``,
    /// or `Cache-Control: only-if-cached`) when it has no usable answer: not-found-like, nothing sent.
    static func notInCache(_ hop: PreparedRequest, _ reason: CacheUnavailability, policy: CachePolicy) -> NetworkError {
        let what = switch reason {
        case .nothingStored: "nothing is stored in the response cache for it"
        case .needsValidation: "the stored response is stale and may not be used before the server confirms it"
        }
        let why = policy == .returnCacheDontLoad ? "its cache policy .returnCacheDontLoad" : "its Cache-Control: only-if-cached"
        let reason = "\(what), and \(why) forbids the network"
        return .notFound(.init(request: hop.redactedDescription, reason: reason,
                               underlyingError: CacheUnavailableError(description: reason)))
    }

    /// Whether this is a request only the cache could answer, and could not.
    var isCacheUnavailable: Bool {
        if case .notFound(let context) = self { return context.underlyingError is CacheUnavailableError }
        return false
    }
}
