import Foundation
import Testing
@testable import NetworkLayer

// The fault server the reliability suites (Tests/NetworkLayerTests/Reliability/) run against,
// with what it answers and a provider for it.

/// A misbehaving server on 127.0.0.1: `Tests/Servers/fault_server.py`, on a port the kernel picks.
///
/// Like ``TestServer`` it exits when its stdin closes, so it cannot outlive the test process.
final class FaultServer: StoppableServer {
    /// What the server does with a connection (see the script's docstring).
    enum Mode: String, Sendable {
        /// Reads each request and misbehaves as its path says.
        case serve
        /// Bound, never listening: every connect is refused.
        case refuse
        /// A full accept queue: a connect is never answered, so it times out.
        case backlog
        /// Accepts TCP and reads the ClientHello, never answers it.
        case stallTLS = "stall-tls"
    }

    let mode: Mode
    private let server: ServerProcess

    /// The userinfo `/redirect-userinfo/<path>` puts in its `Location` (see fault_server.py).
    static let canaryUser = "nlcanaryuser"
    static let canaryPassword = "nlcanarypass4f1c"

    /// Starts the server and waits for its `PORT` line. Blocks: call it off the cooperative pool.
    static func start(_ mode: Mode = .serve) throws -> FaultServer {
        // -S: no site packages to import; the server needs only the standard library, and a
        // suite may start several of these at once on a two-core machine.
        let server = try ServerProcess(python: ["-S", testsDirectory.appendingPathComponent("Servers/fault_server.py").path,
                                                "--mode", mode.rawValue],
                                       name: "fault_server.py --mode \(mode.rawValue)")
        return FaultServer(server: server, mode: mode)
    }

    private init(server: ServerProcess, mode: Mode) {
        self.server = server
        self.mode = mode
    }

    var port: Int { server.port }

    /// Stops the server and waits for it to exit. Blocks: call it off the cooperative pool.
    func stop() { server.stop() }

    /// A provider pointing at this server.
    func provider(scheme: HTTPScheme = .http, host: String = "127.0.0.1", headers: [String: String] = [:],
                  authentication: Authentication? = nil) -> FaultProvider {
        FaultProvider(host: host, httpScheme: scheme, port: port, headers: headers, authentication: authentication)
    }

    /// Connections and requests the server has seen (serve mode), asked on a manager of its own.
    func stats() async throws -> FaultStats {
        let net = NetworkManager()
        net.isVerbose = false
        return try await net.perform(TestRequest<FaultStats>(provider(), "/stats", timeout: 5))
    }
}

/// What `/stats` answers: connections accepted and requests read, not counting the `/stats` call.
struct FaultStats: Decodable, Sendable, Equatable {
    let connections: Int
    let requests: Int
}

/// What `/ok` answers.
struct FaultOK: Decodable, Sendable {
    let ok: Bool
}

/// A loopback provider with fixed headers and, optionally, authentication.
struct FaultProvider: ServiceProvider {
    var host: String
    var httpScheme: HTTPScheme
    var port: Int?
    var headers: [String: String] = [:]
    var authentication: Authentication?

    func createHTTPHeaders() -> [String: String] { headers }
}

/// Runs `body` with a fresh fault server in `mode`, stopped afterwards whatever happens. The
/// server starts and stops on a Dispatch thread: both block, and the cooperative pool has only
/// one thread per core.
func withFaultServer<T>(_ mode: FaultServer.Mode = .serve, _ body: (FaultServer) async throws -> T) async throws -> T {
    try await withServer({ try FaultServer.start(mode) }, body)
}

