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
/// (``ServiceProvider/middlewares``) and the request (``BaseRequest/middlewares``), outermost
/// first, and run once around everything a call does (mocks, the cache, every attempt, refresh
/// and redirect). ``NetworkManager/networkMiddlewares`` run around each request on the wire
/// instead, never a cache hit or a mock.
///
/// A middleware may change the request before calling `next` (for every attempt; interceptors
/// still adapt each one), return a response without calling `next`, call `next` more than once,
/// or throw. What it returns is validated and decoded as any response. A streamed response returns
/// at its head; ``HTTPResponse/onBodyEnd(_:)`` tells when its body ended.
///
/// The request holds the provider's headers and credentials raw; its `description` is redacted.
public protocol RequestMiddleware: Sendable {
    /// Handles the call: usually changes `request`, calls `next`, and returns (or looks at) what it gives.
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse

    /// Whether the middleware takes part in a call about to start, read once per call; `false`
    /// leaves it out, as if it were not installed (NetworkLayerObservability's `TracingMiddleware`
    /// says so with a no-op tracer). Default `true`.
    var isActive: Bool { get }
}

extension RequestMiddleware {
    public var isActive: Bool { true }
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
    /// once `delay` has passed. Also each reconnection of an ``EventStream`` (``ReconnectPolicy``):
    /// `attempt` then counts the stream's connections.
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
