import Foundation

/// Sees every attempt of a request just before it goes, and every outcome: the place to sign a
/// request, add a header that depends on the URL or the body, or decide a retry by a rule of
/// your own. Set on ``NetworkManager/interceptors``, ``ServiceProvider/interceptors`` (then
/// ``ServiceProvider/adapt(_:)``) or ``BaseRequest/interceptors``.
///
/// - **adapt** runs for every attempt, outermost first, not again for a redirect's hop (a hop to
///   another origin leaves behind every header it set); the provider's run only for an attempt
///   to the provider's own origin. What it throws fails the request before anything is sent (a
///   foreign error as the `underlyingError` of ``NetworkError/invalidRequest(_:)``).
/// - **retry** is asked after each attempt's final outcome, after the token refresh on a 401 and
///   the request's ``RetryPolicy``: the request's interceptors, the provider's, the manager's;
///   the first that does not answer ``RetryDecision/doNotRetry`` decides.
///
/// No interceptor can send a streamed body twice, start an attempt after the request's total
/// timeout, or wait more than a day.
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
    case retry
    /// Send it again after this wait, clamped to 0 … 1 day.
    case retryAfter(Duration)
}
