import Foundation

/// Where one hop of a request goes to become a response: libcurl, or the mocks.
protocol Transport: Sendable {
    /// Sends the hop and waits for its response (any status, a 3xx included), or throws the
    /// failure. Honours task cancellation by throwing ``NetworkError/cancelled``.
    ///
    /// - Parameter download: the temporary file a download's body goes to (the pipeline moves
    ///   it into place or removes it), and where a resumed attempt continues; `nil` to keep the
    ///   body in memory.
    ///
    /// `nonisolated(nonsending)`: it runs on the caller's executor (the manager's data path).
    nonisolated(nonsending) func send(_ request: PreparedRequest, download: PendingDownload?) async throws(NetworkError) -> HTTPResponse
}
