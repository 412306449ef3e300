#if Observability
import CoreMetrics
import NetworkLayer

/// A circuit breaker's changes of state as a counter, `http.client.circuit.transitions`, through
/// swift-metrics. Dimensions: `networklayer.circuit.origin` (`scheme://host:port`, the provider's
/// origins: a small set) and `networklayer.circuit.state` (`open`, `halfOpen`, `closed`: the new state).
///
/// ```swift
/// var circuitBreaker: CircuitBreaker? { CircuitBreaker(onStateChange: CircuitMetrics.counting()) }
/// ```
public enum CircuitMetrics {
    public static let label = "http.client.circuit.transitions"

    /// A handler for `CircuitBreaker.onStateChange` that counts each change, with the factory
    /// bootstrapped in `MetricsSystem` or `factory`.
    public static func counting(factory: (any MetricsFactory)? = nil) -> @Sendable (CircuitBreaker.StateChange) -> Void {
        { change in
            Counter(label: label, dimensions: [("networklayer.circuit.origin", change.origin),
                                               ("networklayer.circuit.state", change.to.description)],
                    factory: factory ?? MetricsSystem.factory).increment()
        }
    }
}
#endif
