import Foundation
@testable import NetworkLayer

/// The streaming tests' server on 127.0.0.1: `Tests/Servers/sse_server.py` (event streams with
/// split lines and CRLF pairs, comments, ids, retry, a BOM; bodies that end mid-event, reset or
/// stall; a fast 1 GB body; NDJSON; uploads), on a port the kernel picks.
///
/// Like ``TestServer`` it exits when its stdin closes, so it cannot outlive the test process.
final class SSEServer: StoppableServer {
    private let server: ServerProcess

    var port: Int { server.port }

    /// Starts the server and waits for its port. Blocks: call it off the cooperative pool.
    static func start() throws -> SSEServer {
        SSEServer(server: try ServerProcess(python: ["-S", testsDirectory.appendingPathComponent("Servers/sse_server.py").path],
                                            name: "sse_server.py"))
    }

    private init(server: ServerProcess) {
        self.server = server
    }

    /// Stops the server and waits for it to exit. Blocks: call it off the cooperative pool.
    func stop() { server.stop() }

    /// A provider pointing at this server.
    func provider(headers: [String: String] = [:]) -> TestProvider {
        TestProvider(host: "127.0.0.1", httpScheme: .http, port: port, headers: headers)
    }

    /// What the server counts of its streaming responses: open now, opened and closed in total.
    struct Stats: Decodable, Sendable {
        let open: Int
        let opened: Int
        let closed: Int
    }

    func stats() async throws -> Stats {
        let net = makeManager()
        return try await net.perform(TestRequest<Stats>(provider(), "/stats", timeout: 5))
    }

    /// The stats once no stream is open, or as they are after `limit`: a handler writing a large
    /// body learns of the client's close only when its next write fails, a moment after the
    /// client's socket is gone.
    func statsOnceClosed(within limit: Duration = .seconds(5)) async throws -> Stats {
        let deadline = ContinuousClock.now + limit
        var stats = try await stats()
        while stats.open > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            stats = try await self.stats()
        }
        return stats
    }
}

/// Runs `body` with a fresh streaming server, stopped afterwards whatever happens.
func withSSEServer<T>(_ body: (SSEServer) async throws -> T) async throws -> T {
    try await withServer({ try SSEServer.start() }, body)
}
