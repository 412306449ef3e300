import Foundation

/// The manager's settings that shape a transfer, fixed when the request starts.
struct TransferOptions: Sendable {
    /// A PEM file of CA certificates trusted instead of the system store.
    var customCABundle: URL?
    /// The pins to enforce, or `nil` when pinning is off.
    var pinning: PinningConfiguration?
    /// Why pins cannot be checked in this process, or `nil` (see ``TLSBackendCheck``).
    var tlsBackendProblem: String?
    /// The largest response body accepted, or `nil` for no limit.
    var maximumResponseSize: Int?
    /// How far a compressed body may expand.
    var decompressionLimit = DecompressionLimit.standard
}
