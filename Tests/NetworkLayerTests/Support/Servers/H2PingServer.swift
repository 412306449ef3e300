import Foundation
@testable import NetworkLayer

/// `Tests/Servers/h2_ping_server.py`: HTTP/2 in cleartext (prior knowledge) with the `h2` package
/// of the .venv, counting the PING frames its clients send (`/pings`); `/ok`, `/sse`, `/silent`.
final class H2PingServer: StoppableServer {
    private let server: ServerProcess

    var port: Int { server.port }

    /// Starts the server and waits for its port. Blocks: call it off the cooperative pool.
    static func start() throws -> H2PingServer { try H2PingServer() }

    private init() throws {
        guard FileManager.default.isExecutableFile(atPath: HTTPBinServer.python.path) else {
            throw TestServerError(description: "\(HTTPBinServer.python.path) is missing: run `make deps` to create the .venv with h2")
        }
        server = try ServerProcess(python: [testsDirectory.appendingPathComponent("Servers/h2_ping_server.py").path],
                                   name: "h2_ping_server.py", interpreter: HTTPBinServer.python.path)
    }

    func stop() { server.stop() }

    /// A provider speaking HTTP/2 to this server without TLS.
    func provider() -> H2Provider { H2Provider(port: port) }

    struct Counts: Decodable, Sendable {
        let pings: Int
        let connections: Int
    }
}

/// A loopback provider speaking HTTP/2 by prior knowledge, with a keepalive of its own if given.
struct H2Provider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var keepAlive: KeepAlive?
    var httpVersion: HTTPVersion? { .http2PriorKnowledge }
}

/// Runs `body` with a fresh HTTP/2 ping-counting server, stopped afterwards whatever happens.
func withH2PingServer<T>(_ body: (H2PingServer) async throws -> T) async throws -> T {
    try await withServer({ try H2PingServer.start() }, body)
}
