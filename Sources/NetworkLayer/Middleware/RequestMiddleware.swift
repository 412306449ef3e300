import Foundation

/// Wraps a whole call (see <doc:Middleware>): it may change the request before calling `next`,
/// return a response without calling it, call it more than once, or throw; what it returns is
/// validated and decoded as any response. Middlewares run outermost first: the manager's, the
/// provider's, the request's. The request holds credentials raw; its `description` is redacted.
public protocol RequestMiddleware: Sendable {
    /// Handles the call.
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse

    /// Whether the middleware takes part in a call about to start, read once per call. Default `true`.
    var isActive: Bool { get }

    /// Whether its observers get the call's ``CallEvent``s (``RequestObserver/receive(_:)``), read
    /// once per call. Default `false`: a call whose middlewares all say `false`, on a manager
    /// without event subscriptions, builds no event.
    var observesCallEvents: Bool { get }
}

extension RequestMiddleware {
    public var isActive: Bool { true }
    public var observesCallEvents: Bool { false }
}

/// The rest of a call after a middleware; call it as a function, once, several times, or not at all.
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

    /// Runs the rest of the call with `request`, telling `observer` what happens inside it.
    public func callAsFunction(_ request: OutgoingRequest, observer: some RequestObserver) async throws(NetworkError) -> HTTPResponse {
        try await proceed(request, observers + [observer])
    }
}

/// Watches the inside of one call for a middleware. Every method defaults to nothing; they are
/// called on the call's own task, in order: keep them quick.
public protocol RequestObserver: Sendable {
    /// A request is about to go on the wire (never a cache hit or a mock). Headers set here are
    /// sent with this request only, and checked like an interceptor's.
    func willSend(_ request: inout OutgoingRequest)

    /// The call follows a redirect.
    func didRedirect(_ redirect: Redirect)

    /// The call sends its request again after attempt number `attempt`, once `delay` has passed;
    /// also each reconnection of an ``EventStream`` (`attempt` then counts its connections).
    func willRetry(after outcome: RequestOutcome, attempt: Int, delay: Duration)

    /// Whether ``willSend(_:)`` is to be called (`false` saves building each request). Default `true`.
    var watchesRequestsOnTheWire: Bool { get }

    /// An event of the call's hops on the wire, from the connection's phases to the body's end,
    /// when the middleware ``RequestMiddleware/observesCallEvents``. Called on the thread where it
    /// happens (libcurl's for the connection): it must return at once.
    func receive(_ event: CallEvent)
}

extension RequestObserver {
    public var watchesRequestsOnTheWire: Bool { true }
    public func willSend(_ request: inout OutgoingRequest) {}
    public func didRedirect(_ redirect: Redirect) {}
    public func willRetry(after outcome: RequestOutcome, attempt: Int, delay: Duration) {}
    public func receive(_ event: CallEvent) {}
}
