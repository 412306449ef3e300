import Foundation
@testable import NetworkLayer

/// The certificates of the mutual-TLS tests, made once per test process by
/// `Tests/Servers/client_certificates.py` (trustme, from the `.venv`) in a temporary directory.
struct ClientCertificateFiles: Sendable {
    let directory: URL
    /// The password of the encrypted keys and of `client.p12`.
    let password: String

    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    private static let made = Result { () throws -> ClientCertificateFiles in
        let python = HTTPBinServer.python
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw TestServerError(description: "\(python.path) is missing: run `make deps` to create the .venv with trustme")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mtls-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = python
        process.arguments = [testsDirectory.appendingPathComponent("Servers/client_certificates.py").path, directory.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, printed.hasPrefix("OK") else {
            throw TestServerError(description: "client_certificates.py failed (\(process.terminationStatus)): \(printed)")
        }
        let password = try String(contentsOf: directory.appendingPathComponent("password.txt"), encoding: .utf8)
        return ClientCertificateFiles(directory: directory, password: password)
    }

    /// The files, made by the first test that asks.
    static func shared() async throws -> ClientCertificateFiles {
        try await offCooperativePool { try made.get() }
    }

    /// Client `a` (CN=client-a) with its unencrypted key.
    var clientA: ClientCertificate { .pem(certificate: url("client.pem"), privateKey: url("client.key")) }
    /// Client `b` (CN=client-b), of the same CA.
    var clientB: ClientCertificate { .pem(certificate: url("client-b.pem"), privateKey: url("client-b.key")) }
}

/// `Tests/Servers/mtls_server.py`: an HTTPS server on 127.0.0.1 that asks for client
/// certificates of the test CA (`required`: refuses a handshake without one), and writes what
/// reached it (every TCP accept, every handshake and refusal) to an events file.
final class MTLSServer: StoppableServer {
    private let server: ServerProcess
    let events: URL
    var port: Int { server.port }

    static func start(_ files: ClientCertificateFiles, verify: String = "required", closeAtOnce: Bool = false) throws -> MTLSServer {
        let events = FileManager.default.temporaryDirectory.appendingPathComponent("mtls-events-\(UUID().uuidString).log")
        let server = try ServerProcess(python: ["-S", testsDirectory.appendingPathComponent("Servers/mtls_server.py").path,
                                                "--cert", files.url("server.pem").path, "--key", files.url("server.key").path,
                                                "--client-ca", files.url("ca.pem").path, "--verify", verify,
                                                "--events", events.path] + (closeAtOnce ? ["--close-at-once"] : []),
                                       name: "mtls_server.py")
        return MTLSServer(server: server, events: events)
    }

    private init(server: ServerProcess, events: URL) {
        self.server = server
        self.events = events
    }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: events)
    }

    /// The event lines so far ("accept 3", "handshake 3 client-a 0", "refused 4 …").
    func eventLines() -> [String] {
        guard let handle = try? FileHandle(forReadingFrom: events) else { return [] }
        defer { try? handle.close() }
        let text = String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }

    /// The event lines once one matching `predicate` arrived (the server writes a refusal after the
    /// client already saw it), or after `limit`.
    func eventLines(waitingFor predicate: (String) -> Bool, limit: Duration = .seconds(5)) async -> [String] {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let lines = eventLines()
            if lines.contains(where: predicate) { return lines }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return eventLines()
    }

    /// How many TCP connections the server accepted so far.
    var acceptedConnections: Int { eventLines().filter { $0.hasPrefix("accept ") }.count }

    /// A provider for this server presenting `certificate`.
    func provider(_ certificate: ClientCertificate?, host: String = "127.0.0.1") -> MTLSProvider {
        MTLSProvider(host: host, port: port, clientCertificate: certificate)
    }
}

/// A provider for an ``MTLSServer``.
struct MTLSProvider: ServiceProvider {
    var host: String
    var httpScheme: HTTPScheme { .https }
    var port: Int?
    var clientCertificate: ClientCertificate?
    var retryPolicy: RetryPolicy?
    var tls: TLSOptions?
    var cachesAuthorizedResponsesOnDisk = false
}

/// What `/whoami` answers.
struct WhoAmI: Decodable, Sendable, Equatable {
    let subject: String?
    let connection: Int
    let request: Int
    let resumed: Bool
}

/// A manager trusting the mutual-TLS test CA.
func makeMTLSManager(_ files: ClientCertificateFiles, log: LogCollector? = nil, entries: LogEntryCollector? = nil) -> NetworkManager {
    let net = makeManager(log: log, entries: entries)
    net.customCABundle = files.url("ca.pem")
    return net
}

/// Runs `body` with a fresh ``MTLSServer``, stopped afterwards whatever happens.
func withMTLSServer<T>(_ files: ClientCertificateFiles, verify: String = "required", closeAtOnce: Bool = false,
                       _ body: (MTLSServer) async throws -> T) async throws -> T {
    try await withServer({ try MTLSServer.start(files, verify: verify, closeAtOnce: closeAtOnce) }, body)
}
