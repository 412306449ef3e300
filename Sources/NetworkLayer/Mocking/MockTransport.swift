import Foundation

/// Answers requests from a ``MockStore`` instead of the network: no socket is ever opened.
struct MockTransport: Transport {
    let store: MockStore

    func send(_ request: PreparedRequest, options: TransferOptions) async throws(NetworkError) -> HTTPResponse {
        let (response, delay) = try store.response(for: request)
        if delay > 0 {
            // The request's timeout still applies, as it would to a slow server.
            let wait = min(delay, request.timeout)
            do {
                try await Task.sleep(for: .seconds(wait))
            } catch {
                throw .cancelled(.init(request: request.redactedDescription, reason: "it was cancelled during the mock's delay"))
            }
            if delay > request.timeout {
                throw .timeOut(.init(request: request.redactedDescription,
                                     reason: "the mock's delay of \(delay.compactText) s exceeds the timeout of \(request.timeout.compactText) s"))
            }
        }
        if Task.isCancelled {
            throw .cancelled(.init(request: request.redactedDescription, reason: "it was cancelled"))
        }
        return response
    }
}
