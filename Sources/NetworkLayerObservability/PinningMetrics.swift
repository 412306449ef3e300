#if Observability
import CoreMetrics
import NetworkLayer

/// A manager's pinning reports as a counter, `networklayer.pinning.reports`, through swift-metrics.
///
/// | Dimension | Values |
/// |---|---|
/// | `server.address`, `server.port` | the pinned host and port |
/// | `networklayer.pinning.kind` | `mismatch`, `expiringSoon` |
/// | `networklayer.pinning.enforced` | `true` when the connection was refused for it |
///
/// The hosts are those of the pinning rules, a small set; a report carries nothing else of a request.
public enum PinningMetrics {
    public static let label = "networklayer.pinning.reports"

    /// Counts `manager`'s reports from now on, with the factory bootstrapped in `MetricsSystem`
    /// or `factory`. Cancel the task to stop.
    @discardableResult
    public static func record(from manager: NetworkManager = Net, factory: (any MetricsFactory)? = nil) -> Task<Void, Never> {
        let reports = manager.pinningReports
        var iterator = reports.makeAsyncIterator()  // subscribed before this returns: no report is missed
        return Task {
            while let report = await iterator.next() {
                let dimensions = [("server.address", report.host), ("server.port", String(report.port)),
                                  ("networklayer.pinning.kind", report.kind.rawValue),
                                  ("networklayer.pinning.enforced", report.wasEnforced ? "true" : "false")]
                Counter(label: label, dimensions: dimensions, factory: factory ?? MetricsSystem.factory).increment()
            }
        }
    }
}
#endif
