import Foundation

/// Stops calling an origin that keeps failing: after ``failureThreshold`` failures in a row the
/// circuit opens, and for ``openFor`` every request to that origin fails at once with
/// ``NetworkError/circuitOpen(_:)`` without touching the network. Then it is half-open:
/// ``halfOpenProbes`` requests go through; a success closes it, a failure opens it again.
///
/// State is kept per origin (scheme, host, port) by the manager; each hop (retry, redirect,
/// hedge) asks it and counts in it. A failing response's `Retry-After` keeps it open longer, up
/// to ``retryAfterCeiling``. Mocked requests are not subject to it.
///
/// ```swift
/// struct API: ServiceProvider {
///     var circuitBreaker: CircuitBreaker? { CircuitBreaker(failureThreshold: 5, openFor: .seconds(30)) }
/// }
/// ```
public struct CircuitBreaker: Sendable {
    /// Failures in a row that open the circuit; at least 1.
    public var failureThreshold: Int
    /// How long the circuit stays open, within 0 … 1 day.
    public var openFor: Duration
    /// Requests let through at once while half-open; at least 1.
    public var halfOpenProbes: Int
    /// Whether an outcome is a failure. Default ``isDefaultFailure(_:)``.
    public var isFailure: @Sendable (RequestOutcome) -> Bool
    /// Called after each change of state, outside any lock. Default `nil`.
    public var onStateChange: (@Sendable (StateChange) -> Void)?

    /// A server's `Retry-After` keeps the circuit open at most this long (or ``openFor``, if longer).
    public static let retryAfterCeiling: Duration = .seconds(60 * 60)

    public init(failureThreshold: Int = 5, openFor: Duration = .seconds(30), halfOpenProbes: Int = 1,
                isFailure: @escaping @Sendable (RequestOutcome) -> Bool = CircuitBreaker.isDefaultFailure,
                onStateChange: (@Sendable (StateChange) -> Void)? = nil) {
        self.failureThreshold = failureThreshold
        self.openFor = openFor
        self.halfOpenProbes = halfOpenProbes
        self.isFailure = isFailure
        self.onStateChange = onStateChange
    }

    /// The default rule: a transport failure, an unreachable host, a timeout, or a 5xx response.
    /// A 4xx, a cancellation and a refused certificate are not failures of the server.
    @Sendable public static func isDefaultFailure(_ outcome: RequestOutcome) -> Bool {
        switch outcome {
        case .response(let response): response.statusCode >= 500
        case .failure(.transport), .failure(.reachability), .failure(.timeOut): true
        case .failure: false
        }
    }

    /// A circuit's state.
    public enum State: Sendable, Equatable, CustomStringConvertible {
        /// Requests go through.
        case closed
        /// Requests fail at once until this time.
        case open(until: Date)
        /// Probes go through; the rest fail at once.
        case halfOpen

        public var description: String {
            switch self {
            case .closed: "closed"
            case .open: "open"
            case .halfOpen: "halfOpen"
            }
        }
    }

    /// One change of a circuit's state.
    public struct StateChange: Sendable {
        /// `scheme://host:port`: no user, path or query.
        public let origin: String
        public let from: State
        public let to: State
        /// Why, in words ("5 failures in a row, the last status 503").
        public let reason: String
    }

    var threshold: Int { max(failureThreshold, 1) }
    var probes: Int { max(halfOpenProbes, 1) }
    var openTime: Duration { RetryPolicy.clamped(openFor) }

    /// How long to stay open after `outcome`: ``openFor``, or its `Retry-After` up to the ceiling.
    func openTime(after outcome: RequestOutcome) -> Duration {
        let base = openTime
        guard case .response(let response) = outcome, let value = response.value(forHeader: "Retry-After"),
              let seconds = RetryPolicy.seconds(fromRetryAfter: value) else { return base }
        return max(base, RetryPolicy.duration(seconds: seconds, cappedAt: max(base, Self.retryAfterCeiling)))
    }
}
