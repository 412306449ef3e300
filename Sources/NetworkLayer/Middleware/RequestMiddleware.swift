import Foundation

/// Wraps a whole call: sees the request before anything is sent and the response after the
/// library is done with it, and decides what happens in between. The place for tracing, metrics,
/// a circuit breaker, a stub, request coalescing.
///
/// ```swift
/// struct Timing: RequestMiddleware {
///     func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
///         let start = ContinuousClock.now
///         let response = try await next(request)
///         print(request.method, request.url, response.statusCode, ContinuousClock.now - start)
///         return response
///     }
/// }
/// Net.middlewares = [Timing()]
/// ```
///
/// Middlewares come from the manager (``NetworkManager/middlewares``), the provider
/// (``ServiceProvider/middlewares``) and the request (``BaseRequest/middlewares``), outermost first.
/// They run once per call, around everything the call does: mocks, the response cache, every
/// attempt, retry, token refresh and redirect. ``NetworkManager/networkMiddlewares`` run instead
/// around each request that goes on the wire: each attempt and each hop of a redirect, never a
/// cache hit or a mock.
///
/// A middleware may:
/// - change the request (its headers, URL, body, method) before calling `next`: the change holds
///   for every attempt, and the interceptors then adapt each attempt as usual;
/// - return a response without calling `next` (a stub, a circuit breaker), or call `next` more
///   than once (a hedge, a retry of its own);
/// - throw a ``NetworkError``, which the call throws.
///
/// Whatever it returns goes through the request's validation and decoding as any response does.
/// A streamed response (``ByteStream``, ``EventStream``, ``JSONLines``) returns at its head; its
/// ``HTTPResponse/onBodyEnd(_:)`` tells when the body has ended or failed, for a span or a timer
/// that must cover the whole stream.
///
/// The request it gets is the first attempt as prepared: the provider's headers and the
/// credentials are in it, raw; its `description` is redacted.
public protocol RequestMiddleware: Sendable {
    /// Handles the call: usually changes `request`, calls `next`, and returns (or looks at) what it gives.
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse
}

/// The rest of a call after a middleware: the middlewares after it, then the library's own steps.
///
/// Call it as a function, `try await next(request)`, once, several times, or not at all.
public struct RequestMiddlewareNext: Sendable {
    private let proceed: @Sendable (OutgoingRequest, [any RequestObserver]) async throws(NetworkError) -> HTTPResponse
    private let observers: [any RequestObserver]

    init(observers: [any RequestObserver],
         _ proceed: @escaping @Sendable (OutgoingRequest, [any RequestObserver]) async throws(NetworkError) -> HTTPResponse) {
        self.observers = observers
        self.proceed = proceed
    }

    /// Runs the rest of the call with `request` and returns its response.
    public func callAsFunction(_ request: OutgoingRequest) async throws(NetworkError) -> HTTPResponse {
        try await proceed(request, observers)
    }

    /// Runs the rest of the call with `request`, telling `observer` what happens inside it: each
    /// request before it goes on the wire, each redirect, each retry.
    public func callAsFunction(_ request: OutgoingRequest, observer: some RequestObserver) async throws(NetworkError) -> HTTPResponse {
        try await proceed(request, observers + [observer])
    }
}

/// Watches the inside of one call for a middleware: what ``RequestMiddlewareNext`` does between
/// the request it is given and the response it returns. Every method has a default that does nothing.
///
/// Its methods are called on the call's own task, in order; keep them quick.
public protocol RequestObserver: Sendable {
    /// A request is about to go on the wire: the first attempt, a retry, a hop of a redirect, a
    /// cache's revalidation. Never for a cache hit or a mock. Headers set here are sent with this
    /// request only (a trace context); they are checked like an interceptor's.
    func willSend(_ request: inout OutgoingRequest)

    /// The call follows a redirect.
    func didRedirect(_ redirect: Redirect)

    /// The call sends its request again after `outcome`, the outcome of attempt number `attempt`,
    /// once `delay` has passed.
    func willRetry(after outcome: RequestOutcome, attempt: Int, delay: Duration)

    /// Whether ``willSend(_:)`` is to be called. An observer that only counts redirects and
    /// retries says `false`: the call then builds nothing for each request on the wire. Default `true`.
    var watchesRequestsOnTheWire: Bool { get }
}

extension RequestObserver {
    public var watchesRequestsOnTheWire: Bool { true }
    public func willSend(_ request: inout OutgoingRequest) {}
    public func didRedirect(_ redirect: Redirect) {}
    public func willRetry(after outcome: RequestOutcome, attempt: Int, delay: Duration) {}
}
