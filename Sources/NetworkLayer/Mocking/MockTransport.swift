import Foundation

/// Answers requests from mocks instead of the network: no socket is ever opened.
///
/// Lookup order: the file named by the request's `mockedResponseFilename`, then the
/// `METHOD/path` file. The answer found waits out its delay, then goes back up the data path
/// exactly as a live response (or failure) would.
struct MockTransport: Transport {
    let store: MockStore

    func send(_ request: PreparedRequest, options: TransferOptions) async throws(NetworkError) -> HTTPResponse {
        try await answer(for: request).deliver(for: request)
    }

    /// The first mock that answers `request`, or ``NetworkError/mockNotFound(filename:)`` naming
    /// every place looked in, in order.
    func answer(for request: PreparedRequest) throws(NetworkError) -> MockAnswer {
        var names: [String] = []
        if let filename = request.snapshot.mockedResponseFilename { names.append(filename) }
        names.append(MockStore.methodPathName(for: request))
        var lookedIn: [String] = []
        for name in names {
            if let answer = try store.answer(named: name, for: request) { return answer }
            lookedIn.append(try store.file(named: name, extension: "json").path)
        }
        throw .mockNotFound(filename: lookedIn.joined(separator: ", then "))
    }
}
