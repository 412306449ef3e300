import Foundation

/// What a test run's mocks covered: registrations and mock files never used, and requests that
/// found no mock. ``MockRegistry/coverage`` (`Net.mocks.coverage`) reads it after the run, so a
/// team deletes dead mocks and sees the endpoints its tests never mocked.
public struct MockCoverage: Sendable, Equatable, CustomStringConvertible {
    /// A request mock mode had no mock for.
    public struct Unmocked: Sendable, Equatable, Hashable {
        public let method: HTTPMethod
        /// The URL's path.
        public let path: String
        /// `true` when the fallback mock answered it; `false` when it failed with ``NetworkError/mockNotFound(filename:)``.
        public let answeredByFallback: Bool
    }

    /// Registrations in code no request used, as the missing-mock error names them
    /// (`ProfileRequest`, `operation getUser`, `GET /profile`), sorted.
    public var unusedRegistrations: [String]
    /// Files of the mock directories consulted that no request read (bodies and sidecars), as
    /// paths relative to their directory, sorted. A directory no request looked in is not listed.
    public var unusedFiles: [String]
    /// Requests that found no mock, once per method, path and outcome, in the order first seen.
    public var unmockedRequests: [Unmocked]

    public var description: String {
        var lines: [String] = []
        if !unusedRegistrations.isEmpty { lines.append("mocks registered in code never used: " + unusedRegistrations.joined(separator: ", ")) }
        if !unusedFiles.isEmpty { lines.append("mock files never read: " + unusedFiles.joined(separator: ", ")) }
        for request in unmockedRequests {
            lines.append("no mock for \(request.method.rawValue) \(request.path)" + (request.answeredByFallback ? " (the fallback answered)" : " (failed: mock not found)"))
        }
        return (lines.isEmpty ? "every mock was used and every request had one" : lines.joined(separator: "\n")).escapingControlCharactersInBody
    }
}

/// What mock mode used, as it answers: the registry's side of ``MockCoverage``. Bounded: at most
/// ``MockRegistry/recordedRequestLimit`` unmocked requests and 10,000 files are remembered.
final class MockUsage: Sendable {
    private struct State {
        var registrations: Set<String> = []
        var files: Set<String> = []
        var directories: Set<String> = []
        var unmocked: [MockCoverage.Unmocked] = []
    }

    private let state = Protected(State())
    static let fileLimit = 10_000

    func used(registration: String) {
        state.withLock { _ = $0.registrations.insert(registration) }
    }

    func looked(in directory: URL) {
        let path = directory.standardizedFileURL.path
        state.withLock { state in
            if state.directories.count < 64 { state.directories.insert(path) }
        }
    }

    func read(_ file: URL) {
        let path = file.standardizedFileURL.path
        state.withLock { state in
            if state.files.count < Self.fileLimit { state.files.insert(path) }
        }
    }

    func unmocked(_ request: PreparedRequest, answeredByFallback: Bool) {
        let entry = MockCoverage.Unmocked(method: request.method, path: request.url.path(percentEncoded: true),
                                          answeredByFallback: answeredByFallback)
        state.withLock { state in
            guard !state.unmocked.contains(entry), state.unmocked.count < MockRegistry.recordedRequestLimit else { return }
            state.unmocked.append(entry)
        }
    }

    func reset() {
        state.withLock { $0 = State() }
    }

    func coverage(registered: [String]) -> MockCoverage {
        let (used, files, directories, unmocked) = state.withLock { ($0.registrations, $0.files, $0.directories, $0.unmocked) }
        var unusedFiles: [String] = []
        for directory in directories.sorted() {
            let root = URL(fileURLWithPath: directory, isDirectory: true)
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey],
                                                              options: [.skipsHiddenFiles]) else { continue }
            for case let url as URL in walker where unusedFiles.count < Self.fileLimit {
                guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
                let path = url.standardizedFileURL.path
                guard !files.contains(path) else { continue }
                unusedFiles.append(String(path.dropFirst(directory.count).drop { $0 == "/" }))
            }
        }
        return MockCoverage(unusedRegistrations: Set(registered).subtracting(used).sorted(), unusedFiles: unusedFiles.sorted(),
                            unmockedRequests: unmocked)
    }
}
