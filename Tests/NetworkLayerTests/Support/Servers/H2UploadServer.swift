import Foundation
@testable import NetworkLayer

/// hypercorn over TLS on 127.0.0.1 (`Tests/Servers/h2_upload_server.py`, run by the `.venv` that
/// `make deps` creates), offering HTTP/2: it reads each request body whole and answers what it
/// got. Its certificate is `Certificates/localhost-chain.pem` (localhost and 127.0.0.1), trusted
/// by ``makeTLSManager()``. It exits when its stdin closes, like the other servers.
final class H2UploadServer: StoppableServer {
    private let server: ServerProcess
    var port: Int { server.port }

    /// What the server saw of a body.
    struct Report: Decodable, Sendable {
        let size: Int
        let sha256: String
        let chunked: Bool
        let chunks: Int
        let pattern: Bool
        let httpVersion: String

        enum CodingKeys: String, CodingKey {
            case size, sha256, chunked, chunks, pattern
            case httpVersion = "http_version"
        }
    }

    /// Starts the server and waits for its port. Blocks: call it off the cooperative pool.
    static func start() throws -> H2UploadServer { try H2UploadServer() }

    private init() throws {
        guard FileManager.default.isExecutableFile(atPath: HTTPBinServer.python.path) else {
            throw TestServerError(description: "\(HTTPBinServer.python.path) is missing: run `make deps` to create the .venv with hypercorn")
        }
        server = try ServerProcess(python: [testsDirectory.appendingPathComponent("Servers/h2_upload_server.py").path,
                                            "--cert", certificatesDirectory.appendingPathComponent("localhost-chain.pem").path,
                                            "--key", certificatesDirectory.appendingPathComponent("localhost.key").path],
                                   name: "h2_upload_server.py", interpreter: HTTPBinServer.python.path)
    }

    /// Stops the server and waits for it to exit. Blocks: call it off the cooperative pool.
    func stop() { server.stop() }

    /// A provider pointing at this server over HTTPS.
    func provider() -> TestProvider {
        TestProvider(host: "127.0.0.1", httpScheme: .https, port: port)
    }
}

/// Runs `body` with a fresh HTTP/2 upload server, stopped afterwards whatever happens.
func withH2UploadServer<T>(_ body: (H2UploadServer) async throws -> T) async throws -> T {
    try await withServer({ try H2UploadServer.start() }, body)
}
