import Foundation

/// The manager's settings that shape a transfer, fixed when the request starts.
struct TransferOptions: Sendable {
    /// A PEM file of CA certificates trusted instead of the system store.
    var customCABundle: URL?
    /// The pins to enforce, or `nil` when pinning is off.
    var pinning: PinningConfiguration?
    /// The largest response body accepted, or `nil` for no limit.
    var maximumResponseSize: Int?
}
