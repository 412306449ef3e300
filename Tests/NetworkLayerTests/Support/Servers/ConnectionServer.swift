import Foundation
@testable import NetworkLayer

/// `Tests/Servers/connection_server.py`: an HTTP/1.1 server on 127.0.0.1 that counts its
/// connections (open at once, the peak) and records every close, with who closed it and after
/// how long idle. Its numbers are read with the `curl` program, so that reading them neither
/// uses nor disturbs the library's connections.
final class ConnectionServer: StoppableServer {
    private let server: ServerProcess
    var port: Int { server.port }

    /// One connection's end, as the server saw it.
    struct Close: Decodable, Sendable {
        let connection: Int
        /// `client` (the server read EOF where a request would start) or `server`.
        let by: String
        /// From the end of its last response to the close.
        let idleSeconds: Double
        let requests: Int
    }

    /// `/stats`: connections counted from their first request.
    struct Stats: Decodable, Sendable {
        let open: Int
        let peak: Int
        let accepted: Int
        let requests: Int
        let closes: [Close]
    }

    /// What `/hold` answers: the connection that carried the request, and how many were open.
    struct Held: Decodable, Sendable {
        let connection: Int
        let open: Int
    }

    /// Starts the server and waits until it listens. Blocks: call it off the cooperative pool.
    init() throws {
        server = try ServerProcess(python: ["-S", testsDirectory.appendingPathComponent("Servers/connection_server.py").path],
                                   name: "connection_server.py")
    }

    func stop() {
        server.stop()
    }

    /// A provider for this server, by `host` (`127.0.0.1` or `localhost`: two hosts to libcurl,
    /// one server).
    func provider(host: String = "127.0.0.1") -> TestProvider {
        TestProvider(host: host, httpScheme: .http, port: port)
    }

    /// The server's numbers now, asked with `curl` on a connection of its own (never counted).
    func stats() async throws -> Stats {
        let (status, output) = try await runShell("curl -s --max-time 5 http://127.0.0.1:\(port)/stats")
        guard status == 0 else { throw TestServerError(description: "curl /stats failed with \(status)") }
        return try JSONDecoder().decode(Stats.self, from: output)
    }

    /// Forgets the peak, the counts and the closes (`/stats/reset`): connections open now count
    /// again from their next request.
    func reset() async throws {
        let (status, _) = try await runShell("curl -s --max-time 5 http://127.0.0.1:\(port)/stats/reset")
        guard status == 0 else { throw TestServerError(description: "curl /stats/reset failed with \(status)") }
    }

    /// Asks for `/stats` every 50 ms until `done` holds (then returns those stats) or `limit` passed
    /// (then returns the last ones).
    func stats(until done: (Stats) -> Bool, limit: Duration) async throws -> Stats {
        let started = ContinuousClock.now
        var last = try await stats()
        while !done(last), started.duration(to: .now) < limit {
            try await Task.sleep(for: .milliseconds(50))
            last = try await stats()
        }
        return last
    }
}

/// Runs `body` with a fresh connection server, stopped afterwards whatever happens.
func withConnectionServer<T>(_ body: (ConnectionServer) async throws -> T) async throws -> T {
    try await withServer({ try ConnectionServer() }, body)
}
