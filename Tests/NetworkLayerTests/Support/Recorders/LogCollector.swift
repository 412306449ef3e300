import Foundation
@testable import NetworkLayer

/// Collects log entries, from any thread.
final class LogCollector: Sendable {
    private let entries = Protected<[String]>([])

    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
    var text: String { all.joined() }
}
