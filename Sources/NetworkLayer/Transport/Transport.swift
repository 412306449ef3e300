import Foundation

/// Where a prepared request goes to become a response: libcurl, or the mock store.
protocol Transport: Sendable {
    /// Sends the request and waits for the complete response, or throws the failure.
    /// Honours task cancellation by throwing ``NetworkError/cancelled``.
    func send(_ request: PreparedRequest, options: TransferOptions) async throws(NetworkError) -> HTTPResponse
}

/// The manager's settings that shape a transfer, fixed when the request starts.
struct TransferOptions: Sendable {
    /// A PEM file of CA certificates trusted instead of the system store.
    var customCABundle: URL?
    /// The pins to enforce, or `nil` when pinning is off.
    var pinning: PinningConfiguration?
    /// The largest response body accepted, or `nil` for no limit.
    var maximumResponseSize: Int?
}
