import Foundation

/// Answers requests from JSON files instead of the network.
struct MockTransport: Transport {
    let directory: URL

    func send(_ request: PreparedRequest, options: TransferOptions) async throws(NetworkError) -> HTTPResponse {
        throw .mockNotFound(filename: directory.path)
    }
}
