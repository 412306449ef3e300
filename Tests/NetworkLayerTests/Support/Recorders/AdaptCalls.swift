import Foundation
@testable import NetworkLayer

/// What one call of a provider's `adapt(_:)` saw.
struct AdaptCall: Sendable {
    let method: HTTPMethod
    let url: URL
    let headers: [String: String]
    let body: Data?
    let bodyLength: Int?
}

/// Every call of a provider's `adapt(_:)`, from any thread.
final class AdaptCalls: Sendable {
    private let calls = Protected<[AdaptCall]>([])

    /// Records a call and returns its number, counting from 1.
    func record(_ request: OutgoingRequest) -> Int {
        calls.withLock {
            $0.append(AdaptCall(method: request.method, url: request.url, headers: request.headers, body: request.body,
                                bodyLength: request.bodyLength))
            return $0.count
        }
    }

    var all: [AdaptCall] { calls.withLock { $0 } }
    var count: Int { calls.withLock { $0.count } }
}
