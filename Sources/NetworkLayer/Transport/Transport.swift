import Foundation

/// Where a prepared request goes to become a response: libcurl, or the mock store.
protocol Transport: Sendable {
    /// Sends the request and waits for the complete response, or throws the failure.
    /// Honours task cancellation by throwing ``NetworkError/cancelled``.
    func send(_ request: PreparedRequest, options: TransferOptions) async throws(NetworkError) -> HTTPResponse
}
