import Foundation

/// Where a prepared request goes to become a response: libcurl, or the mock store.
protocol Transport: Sendable {
    /// Sends the request and waits for the complete response, or throws the failure.
    /// Honours task cancellation by throwing ``NetworkError/cancelled``.
    ///
    /// `nonisolated(nonsending)`: it runs on the caller's executor (the manager's data path, off
    /// the caller's actor already), so calling it costs no executor switch.
    nonisolated(nonsending) func send(_ request: PreparedRequest, options: TransferOptions) async throws(NetworkError) -> HTTPResponse
}
