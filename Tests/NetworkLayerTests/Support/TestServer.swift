import Foundation
import Testing
@testable import NetworkLayer

/// `Tests/` in this checkout, found from this file's path.
let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
/// The repository root.
let repositoryRoot = testsDirectory.deletingLastPathComponent()
/// `Certificates/` in this checkout.
let certificatesDirectory = repositoryRoot.appendingPathComponent("Certificates", isDirectory: true)

struct TestServerError: Error, CustomStringConvertible {
    let description: String
}

/// A loopback server program started by a test: launched with a pipe as its stdin, waited for
/// until it prints `PORT <n>`, stopped by closing that pipe (the servers exit when their stdin
/// closes, so none outlives the test process, even after a crash).
// @unchecked Sendable: immutable after init; `Process.terminate` and `FileHandle.close` may be
// called from any thread.
final class ServerProcess: @unchecked Sendable {
    let port: Int
    private let process: Process
    private let stdinPipe: Pipe

    /// Runs `python3 <arguments>` (or another `interpreter`, such as the `.venv`'s Python) and
    /// waits for its port. Blocks: call it off the cooperative pool.
    init(python arguments: [String], name: String, interpreter: String = "python3") throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [interpreter] + arguments
        let stdinPipe = Pipe()
        let stdoutPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line is "PORT <n>"; EOF first means the server failed to start.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = stdoutPipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw TestServerError(description: "\(name) did not start (printed \"\(text)\")")
        }
        self.port = port
        self.process = process
        self.stdinPipe = stdinPipe
    }

    /// Stops the server and waits for it to exit. Blocks: call it off the cooperative pool.
    func stop() {
        try? stdinPipe.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// A real HTTP(S) server on 127.0.0.1: `Tests/Servers/test_server.py`, on a port the kernel picks.
///
/// The server exits when its stdin closes, so it cannot outlive the test process even if a test crashes.
final class TestServer: Sendable {
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
///
/// Starting waits for Python to print its port and stopping for it to exit, so both run on a
/// Dispatch thread: on the cooperative pool (one thread per core) a few tests doing that at once
/// would stall every other task, and timing tests would measure the stall.
func withTestServer<T>(_ arguments: [String] = [], record: Bool = false, tls: Bool = false,
                       _ body: (TestServer) async throws -> T) async throws -> T {
    let server = try await offCooperativePool { try TestServer.start(arguments, tls: tls, record: record) }
    do {
        let value = try await body(server)
        await offCooperativePool { server.stop() }
        return value
    } catch {
        await offCooperativePool { server.stop() }
        throw error
    }
}

/// A provider for a loopback server, with fixed headers (and a base path, if set).
struct TestProvider: ServiceProvider {
    var host: String
    var httpScheme: HTTPScheme
    var port: Int?
    var headers: [String: String] = [:]
    var basePath = ""

    func createHTTPHeaders() -> [String: String] { headers }
}

/// A port with nothing listening: bound by us, then closed.
func closedPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestServerError(description: "socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    guard bound else { throw TestServerError(description: "bind() failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// What `/echo` reports about the request it received.
struct Echo: Decodable, Sendable {
    let method: String
    let path: String
    let query: String
    let args: [String: [String]]
    let headers: [String: String]
    let headerList: [[String]]
    let body: String
    let bodyBase64: String
    let bodyLength: Int

    /// A received header, ignoring case.
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// A request for any endpoint of a test server, answering with `Response`.
final class TestRequest<Response: Decodable & Sendable>: BaseRequest<Response> {
    init(_ provider: any ServiceProvider, _ endpoint: String, method: HTTPMethod = .get,
         params: [String: any Sendable] = [:], headers: [String: String] = [:], timeout: TimeInterval = 10) {
        super.init(serviceProvider: provider, endpoint: endpoint)
        httpMethod = method
        self.params = params
        additionalHeaders = headers
        self.timeout = timeout
    }
}

/// The ``NetworkError`` `body` throws, or `nil` if it returns (recorded as a test issue).
func networkError<T>(_ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async -> NetworkError? {
    do {
        _ = try await body()
        Issue.record("expected a NetworkError, but the request succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as NetworkError {
        return error
    } catch {
        Issue.record("expected a NetworkError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
