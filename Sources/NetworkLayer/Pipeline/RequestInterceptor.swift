import Foundation

/// Sees every attempt of a request just before it goes, and every outcome: the place to sign a
/// request, add a header that depends on the URL or the body, or decide a retry by a rule of
/// your own.
///
/// Interceptors come from three places, outermost first: the manager's
/// (``NetworkManager/interceptors``), the provider's (``ServiceProvider/interceptors``, then its
/// ``ServiceProvider/adapt(_:)``) and the request's (``BaseRequest/interceptors``).
///
/// - **adapt** runs for every attempt (the first, each retry, the retry after a token refresh),
///   outermost first, so the request's own interceptors see what the others did. It does not
///   run again for a redirect: a hop to the same origin keeps what adapt set, a hop to another
///   origin leaves behind every header adapt set. The provider's interceptors and `adapt(_:)`
///   run only for an attempt to the provider's own origin.
/// - **retry** is asked after each attempt's final outcome (redirects followed), once the
///   library's own links have passed: first the token refresh on a 401, then the request's
///   ``RetryPolicy``. Then the request's interceptors, the provider's, the manager's: the first
///   that does not answer ``RetryDecision/doNotRetry`` decides.
///
/// What adapt throws fails the request, with a `NetworkError` as it is and any other error as
/// the `underlyingError` of ``NetworkError/invalidRequest(_:)``; nothing is sent for that attempt.
/// Bounds no interceptor can lift: a streamed body is never sent twice, no attempt starts after
/// the request's total timeout, a retry waits at most a day.
///
/// ```swift
/// struct RetryConflictOnce: RequestInterceptor {
///     func retry(_ request: OutgoingRequest, after outcome: RequestOutcome, attempt: Int) async -> RetryDecision {
///         guard case .response(let response) = outcome, response.statusCode == 409, attempt == 1 else { return .doNotRetry }
///         return .retryAfter(.milliseconds(200))
///     }
/// }
/// request.interceptors = [RetryConflictOnce()]
/// ```
public protocol RequestInterceptor: Sendable {
    /// Changes an attempt just before it is sent. Default: nothing.
    func adapt(_ request: inout OutgoingRequest) async throws

    /// Whether to send the request again after `outcome`, the final outcome of attempt number
    /// `attempt` (1 for the first). `request` is the attempt as it was sent. Default: ``RetryDecision/doNotRetry``.
    func retry(_ request: OutgoingRequest, after outcome: RequestOutcome, attempt: Int) async -> RetryDecision
}

extension RequestInterceptor {
    public func adapt(_ request: inout OutgoingRequest) async throws {}

    public func retry(_ request: OutgoingRequest, after outcome: RequestOutcome, attempt: Int) async -> RetryDecision {
        .doNotRetry
    }
}

/// How an attempt ended: with a response (any status) or a failure.
public enum RequestOutcome: Sendable {
    /// The server answered; the status may still be a failure.
    case response(HTTPResponse)
    /// No usable response: a transport failure, a timeout, a refused certificate.
    case failure(NetworkError)
}

/// What an interceptor says after an attempt.
public enum RetryDecision: Sendable, Equatable {
    /// Not by this interceptor: the next one is asked, and if none retries, the outcome stands.
    case doNotRetry
    /// Send the request again at once.
    case retry
    /// Send it again after this wait, clamped to 0 … 1 day.
    case retryAfter(Duration)
}
