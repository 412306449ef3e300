import Foundation
@testable import NetworkLayer

/// The response cache's server on 127.0.0.1: `Tests/Servers/cache_server.py`, which answers each
/// path as a test configures it (`Cache-Control`, validators and 304s, `Vary`, failures on demand,
/// `Location` on POST) and counts the requests that reach it, so that "served from the cache" is
/// proved by its count not moving.
///
/// Like ``TestServer`` it exits when its stdin closes, so it cannot outlive the test process.
final class CacheServer: StoppableServer {
    private let server: ServerProcess

    var port: Int { server.port }

    /// Starts the server and waits for its port. Blocks: call it off the cooperative pool.
    static func start() throws -> CacheServer {
        CacheServer(server: try ServerProcess(python: ["-S", testsDirectory.appendingPathComponent("Servers/cache_server.py").path],
                                              name: "cache_server.py"))
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

    /// The URL of a path on this server.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// What the server counted for one path.
    struct Count: Decodable, Sendable {
        struct Request: Decodable, Sendable {
            let method: String
            let headers: [String: String]
        }
        let count: Int
        let conditional: Int
        let methods: [String: Int]
        let requests: [Request]
    }

    /// Sets how `path` answers (for `method`, or any method): a JSON object as the server's
    /// documentation describes (status, headers, body, etag, lastModified, notModifiedHeaders, fail, date, delay).
    func configure(_ path: String, method: String? = nil, _ configuration: [String: any Sendable]) async throws {
        let query = "?path=\(path)" + (method.map { "&method=\($0)" } ?? "")
        let _: JSONValue = try await makeManager().perform(
            BodyRequest(provider(), "/_config\(query)", method: .put, body: .json(object: configuration), timeout: 5))
    }

    /// How many requests reached `path`, and which.
    func count(_ path: String) async throws -> Count {
        try await makeManager().perform(TestRequest<Count>(provider(), "/_count", params: ["path": path], timeout: 5))
    }

    /// Forgets every configuration and count.
    func reset() async throws {
        let _: JSONValue = try await makeManager().perform(BodyRequest(provider(), "/_reset", method: .post, body: nil, timeout: 5))
    }
}

/// Runs `body` with a fresh cache server, stopped afterwards whatever happens.
func withCacheServer<T>(_ body: (CacheServer) async throws -> T) async throws -> T {
    try await withServer({ try CacheServer.start() }, body)
}
