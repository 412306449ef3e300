import Foundation
@testable import NetworkLayer

/// hypercorn on 127.0.0.1 or a Unix socket (`Tests/Servers/echo_server.py`, run by the `.venv`
/// that `make deps` creates), answering every request with what it received: method, raw path
/// and query, every header in order, the body, the HTTP version. Plain HTTP/1.1 and h2c, or TLS
/// with h2 (its certificate is `Certificates/localhost-chain.pem`, trusted by ``makeTLSManager()``).
final class EchoServer: StoppableServer {
    private let server: ServerProcess
    /// The socket's path when it listens on one.
    let socketPath: String?
    let isTLS: Bool
    var port: Int { server.port }

    /// What the server received, as it reports it (also in the `x-echo` response header).
    struct Received: Decodable, Sendable, Equatable {
        let method: String
        let path: String
        let query: String
        let headers: [[String]]
        let body: String
        let httpVersion: String

        enum CodingKeys: String, CodingKey {
            case method, path, query, headers, body
            case httpVersion = "http_version"
        }

        /// The body's bytes.
        var bodyBytes: Data { Data(base64Encoded: body) ?? Data() }

        /// A received header's values, in order.
        func values(_ name: String) -> [String] {
            headers.filter { $0.first == name.lowercased() }.compactMap { $0.last }
        }

        /// From an echo response's `x-echo` header (a HEAD response has no body).
        static func from(_ response: HTTPResponse) throws -> Received {
            guard let header = response.value(forHeader: "x-echo"), let json = Data(base64Encoded: header) else {
                throw TestServerError(description: "the response has no x-echo header")
            }
            return try JSONDecoder().decode(Received.self, from: json)
        }
    }

    /// Starts the server and waits until it listens. Blocks: call it off the cooperative pool.
    /// - Parameters:
    ///   - certificate, key: the TLS chain and key to present instead of `localhost-chain.pem`.
    init(tls: Bool = false, unixSocket: Bool = false, certificate: URL? = nil, key: URL? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: HTTPBinServer.python.path) else {
            throw TestServerError(description: "\(HTTPBinServer.python.path) is missing: run `make deps` to create the .venv with hypercorn")
        }
        var arguments = [testsDirectory.appendingPathComponent("Servers/echo_server.py").path]
        if tls {
            arguments += ["--cert", (certificate ?? certificatesDirectory.appendingPathComponent("localhost-chain.pem")).path,
                          "--key", (key ?? certificatesDirectory.appendingPathComponent("localhost.key")).path]
        }
        // Short: a socket path must fit in 107 bytes, and TMPDIR can be long.
        socketPath = unixSocket ? "/tmp/nl-echo-\(UUID().uuidString.prefix(8)).sock" : nil
        if let socketPath { arguments += ["--unix", socketPath] }
        isTLS = tls
        server = try ServerProcess(python: arguments, name: "echo_server.py", interpreter: HTTPBinServer.python.path)
    }

    func stop() {
        server.stop()
        if let socketPath { unlink(socketPath) }
    }

    /// A provider for this server: over TCP, or over its socket (as `localhost`).
    func provider(authentication: Authentication? = nil, headers: [String: String] = [:],
                  secretHeaderNames: Set<String> = [], proxy: ProxyConfiguration? = nil) -> EchoProvider {
        EchoProvider(host: socketPath == nil ? "127.0.0.1" : "localhost", httpScheme: isTLS ? .https : .http,
                     port: socketPath == nil ? port : nil, authentication: authentication, headers: headers,
                     secretHeaderNames: secretHeaderNames, proxy: proxy, unixSocketPath: socketPath)
    }
}

/// A backend on an ``EchoServer``.
struct EchoProvider: ServiceProvider {
    var host: String
    var httpScheme: HTTPScheme
    var port: Int?
    var authentication: Authentication?
    var headers: [String: String]
    var secretHeaderNames: Set<String>
    var proxy: ProxyConfiguration?
    var unixSocketPath: String?
    var resolve: [ResolveEntry]?

    func createHTTPHeaders() -> [String: String] { headers }
}

/// Runs `body` with a fresh echo server, stopped afterwards whatever happens.
func withEchoServer<T>(tls: Bool = false, unixSocket: Bool = false, certificate: URL? = nil, key: URL? = nil,
                      _ body: (EchoServer) async throws -> T) async throws -> T {
    try await withServer({ try EchoServer(tls: tls, unixSocket: unixSocket, certificate: certificate, key: key) }, body)
}
