import Foundation
@testable import NetworkLayer

/// Progress values received, from any thread.
final class ProgressLog: Sendable {
    private let values = Protected<[TransferProgress]>([])
    func append(_ progress: TransferProgress) { values.withLock { $0.append(progress) } }
    var all: [TransferProgress] { values.withLock { $0 } }
    /// The largest `bytesReceived` reported so far (0 before the first report).
    var largestBytesReceived: Int64 { values.withLock { $0.map(\.bytesReceived).max() ?? 0 } }
}
