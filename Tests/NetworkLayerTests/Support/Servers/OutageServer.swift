import Foundation
import Testing
@testable import NetworkLayer

/// `Tests/Servers/outage_server.py`: a server told to answer, fail or be slow, counting the
/// requests it sees and the slow answers whose client hung up. Exits when its stdin closes.
final class OutageServer: StoppableServer {
    private let server: ServerProcess

    /// Starts the server and waits for its `PORT` line. Blocks: call it off the cooperative pool.
    static func start() throws -> OutageServer {
        OutageServer(server: try ServerProcess(python: ["-S", testsDirectory.appendingPathComponent("Servers/outage_server.py").path],
                                                name: "outage_server.py"))
    }

    private init(server: ServerProcess) { self.server = server }

    var port: Int { server.port }

    func stop() { server.stop() }

    /// A provider for this server, with `breaker`.
    func provider(breaker: CircuitBreaker? = nil) -> OutageProvider {
        OutageProvider(port: port, circuitBreaker: breaker)
    }

    struct Stats: Decodable, Sendable {
        let requests: Int
        let cancelled: Int
    }

    /// What the server has counted, asked on a manager of its own (its circuits are not the test's).
    func stats() async throws -> Stats {
        try await Self.control.perform(TestRequest<Stats>(provider(), "/stats", timeout: 5))
    }

    /// Sets what `/work` answers: `ok`, `fail` (503, with `retryAfter`) or `slow` (after `delay` s).
    func set(_ mode: String, retryAfter: String? = nil, delay: Double = 1) async throws {
        var query = "mode=\(mode)&delay=\(delay)"
        if let retryAfter { query += "&retry_after=\(retryAfter.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
        _ = try await Self.control.perform(TestRequest<Data>(provider(), "/control?\(query)", timeout: 5))
    }

    private static let control: NetworkManager = {
        let net = NetworkManager()
        net.isVerbose = false
        return net
    }()
}

struct OutageProvider: ServiceProvider {
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }
    var port: Int?
    var circuitBreaker: CircuitBreaker?
}

func withOutageServer<T>(_ body: (OutageServer) async throws -> T) async throws -> T {
    try await withServer({ try OutageServer.start() }, body)
}
