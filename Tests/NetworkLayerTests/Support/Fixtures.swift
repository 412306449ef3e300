import Foundation
import Synchronization
@testable import NetworkLayer

/// `Tests/Fixtures/MockResponses`: mock files (and sidecars) the tests answer from.
let fixtureMocks = testsDirectory.appendingPathComponent("Fixtures/MockResponses", isDirectory: true)

/// A manager of the test's own, so settings such as mock mode never reach tests running in parallel.
func makeManager(mocks: URL? = nil, log: LogCollector? = nil) -> NetworkManager {
    let net = NetworkManager()
    net.isVerbose = log != nil
    if let log {
        net.logHandler = { entry in log.append(entry) }
    }
    if let mocks {
        net.areMocksEnabled = true
        net.mockResponsesDirectory = mocks
    }
    return net
}

/// Collects log entries, from any thread.
final class LogCollector: Sendable {
    private let entries = Protected<[String]>([])

    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
    var text: String { all.joined() }
}

/// A fresh empty directory under the system's temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("nl-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

/// A request naming its mock file.
final class MockedRequest<Response: Decodable & Sendable>: BaseRequest<Response> {
    init(_ provider: any ServiceProvider, _ endpoint: String, mock: String?, method: HTTPMethod = .get,
         timeout: TimeInterval = 10) {
        super.init(serviceProvider: provider, endpoint: endpoint)
        mockedResponseFilename = mock
        httpMethod = method
        self.timeout = timeout
    }
}

/// Runs `body` while sampling the process's resident memory every 10 ms; returns its value and
/// how far the peak rose above the start. Meaningful because `make test` runs one test at a time.
func measuringPeakMemory<T>(_ body: () async throws -> T) async rethrows -> (value: T, growth: Int) {
    let baseline = residentMemory()
    let peak = Peak()
    let sampler = Task {
        while !Task.isCancelled {
            peak.record(residentMemory())
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
    defer { sampler.cancel() }
    let value = try await body()
    peak.record(residentMemory())
    return (value, peak.value - baseline)
}
