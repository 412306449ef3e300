import Foundation

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
