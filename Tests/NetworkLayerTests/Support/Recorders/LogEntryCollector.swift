@testable import NetworkLayer

/// Collects structured log entries, from any thread.
final class LogEntryCollector: Sendable {
    private let entries = Protected<[NetworkLogEntry]>([])

    func append(_ entry: NetworkLogEntry) { entries.withLock { $0.append(entry) } }
    var all: [NetworkLogEntry] { entries.withLock { $0 } }

    /// Every text an entry holds (URL, message, headers, body, command line, error), for looking for leaks.
    var texts: [String] {
        all.flatMap { entry in
            [entry.url, entry.message, entry.body ?? "", entry.curlCommand ?? "", entry.errorDescription ?? "", entry.description]
                + entry.headers.flatMap { [$0.name, $0.value] }
        }
    }
}
