import Foundation
@testable import NetworkLayer

/// `Tests/Servers/concurrency_server.py`: an HTTP/1.1 server on 127.0.0.1 that counts the requests in
/// flight (now and at the peak) and the order they arrived in. Its numbers are read with the `curl`
/// program, so that reading them never takes a place under the library's limits.
final class ConcurrencyServer: StoppableServer {
    private let server: ServerProcess
    var port: Int { server.port }

    struct Stats: Decodable, Sendable {
        let inFlight: Int
        let peak: Int
        let requests: Int
        let order: [String]
    }

    /// What `/hold` and `/load` answer.
    struct Answer: Decodable, Sendable {
        let tag: String
        let inFlight: Int
    }

    /// Starts the server and waits until it listens. Blocks: call it off the cooperative pool.
    init() throws {
        server = try ServerProcess(python: ["-S", testsDirectory.appendingPathComponent("Servers/concurrency_server.py").path],
                                   name: "concurrency_server.py")
    }

    func stop() {
        server.stop()
    }

    func provider(host: String = "127.0.0.1") -> TestProvider {
        TestProvider(host: host, httpScheme: .http, port: port)
    }

    func stats() async throws -> Stats {
        let (status, output) = try await runShell("curl -s --max-time 5 http://127.0.0.1:\(port)/stats")
        guard status == 0 else { throw TestServerError(description: "curl /stats failed with \(status)") }
        return try JSONDecoder().decode(Stats.self, from: output)
    }

    /// Lets every `/hold?until=released` answer now.
    func release() async throws {
        let (status, _) = try await runShell("curl -s --max-time 5 http://127.0.0.1:\(port)/release")
        guard status == 0 else { throw TestServerError(description: "curl /release failed with \(status)") }
    }
}

/// Runs `body` with a fresh traffic server, stopped afterwards whatever happens.
func withConcurrencyServer<T>(_ body: (ConcurrencyServer) async throws -> T) async throws -> T {
    try await withServer({ try ConcurrencyServer() }, body)
}
