import Foundation
import Testing
@testable import NetworkLayer

/// A real HTTP(S) server on 127.0.0.1: `Tests/Servers/test_server.py`, on a port the kernel picks.
///
/// The server exits when its stdin closes, so it cannot outlive the test process even if a test crashes.
final class TestServer: StoppableServer {
    let isTLS: Bool
    /// The file the server appends every received (decrypted) request byte to, if asked to record.
    let recordFile: URL?
    private let server: ServerProcess

    var port: Int { server.port }

    /// Starts `test_server.py` with extra command-line arguments and waits until it listens.
    static func start(_ arguments: [String] = [], tls: Bool = false, record: Bool = false) throws -> TestServer {
        var arguments = arguments
        var recordFile: URL?
        if record {
            let file = FileManager.default.temporaryDirectory
                .appendingPathComponent("record-\(UUID().uuidString).bin")
            arguments += ["--record", file.path]
            recordFile = file
        }
        let server = try ServerProcess(python: [testsDirectory.appendingPathComponent("Servers/test_server.py").path] + arguments,
                                       name: "test_server.py")
        return TestServer(server: server, isTLS: tls, recordFile: recordFile)
    }

    /// A TLS server presenting `certificate` (a chain file from `Certificates/`) with its key.
    static func startTLS(certificate: String, key: String, record: Bool = false,
                         extra: [String] = []) throws -> TestServer {
        try start(["--tls-cert", certificatesDirectory.appendingPathComponent(certificate).path,
                   "--tls-key", certificatesDirectory.appendingPathComponent(key).path] + extra,
                  tls: true, record: record)
    }

    private init(server: ServerProcess, isTLS: Bool, recordFile: URL?) {
        self.server = server
        self.isTLS = isTLS
        self.recordFile = recordFile
    }

    /// Stops the server and waits for it to exit.
    func stop() {
        server.stop()
        if let recordFile { try? FileManager.default.removeItem(at: recordFile) }
    }

    /// Everything the server has received so far (requires `record: true`).
    func recordedBytes() -> Data {
        guard let recordFile else { return Data() }
        // Through FileHandle: Foundation's Data(contentsOf:) leaks a page per empty file it reads,
        // which the address sanitizer's leak check would report.
        guard let handle = try? FileHandle(forReadingFrom: recordFile) else { return Data() }
        defer { try? handle.close() }
        return (try? handle.readToEnd()) ?? Data()
    }

    /// A provider pointing at this server.
    func provider(headers: [String: String] = [:], host: String = "127.0.0.1") -> TestProvider {
        TestProvider(host: host, httpScheme: isTLS ? .https : .http, port: port, headers: headers)
    }
}

/// Runs `body` with a fresh server and stops the server afterwards, whatever happens.
func withTestServer<T>(_ arguments: [String] = [], record: Bool = false, tls: Bool = false,
                       _ body: (TestServer) async throws -> T) async throws -> T {
    try await withServer({ try TestServer.start(arguments, tls: tls, record: record) }, body)
}

extension TestServer {
    /// Runs `body` with this server, then stops it (on a Dispatch thread: stopping blocks).
    func whileRunning<T>(_ body: (TestServer) async throws -> T) async throws -> T {
        try await running(self, body)
    }
}
