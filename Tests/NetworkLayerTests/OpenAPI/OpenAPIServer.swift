#if IntegrationTests
import Foundation
import NetworkLayer
import NetworkLayerOpenAPI

/// `Tests/Servers/openapi_server.py`: the Notes API of Examples/OpenAPIClient's openapi.yaml on
/// 127.0.0.1, optionally under a base path, over TLS, asking for client certificates.
final class OpenAPIServer: StoppableServer {
    private let server: ServerProcess
    let isTLS: Bool
    let basePath: String
    var port: Int { server.port }

    static func start(basePath: String = "", tls: (certificate: URL, key: URL)? = nil, clientCA: URL? = nil) throws -> OpenAPIServer {
        var arguments = [testsDirectory.appendingPathComponent("Servers/openapi_server.py").path, "--base-path", basePath]
        if let tls { arguments += ["--tls-cert", tls.certificate.path, "--tls-key", tls.key.path] }
        if let clientCA { arguments += ["--client-ca", clientCA.path] }
        return OpenAPIServer(server: try ServerProcess(python: arguments, name: "openapi_server.py"), isTLS: tls != nil, basePath: basePath)
    }

    private init(server: ServerProcess, isTLS: Bool, basePath: String) {
        self.server = server
        self.isTLS = isTLS
        self.basePath = basePath
    }

    func stop() { server.stop() }

    /// The generated client's `serverURL` for this server, at `host`.
    func serverURL(host: String = "127.0.0.1") -> URL {
        URL(string: "\(isTLS ? "https" : "http")://\(host):\(port)\(basePath)")!
    }

    /// A provider for this server's origin at `host`.
    func provider(host: String = "127.0.0.1", authentication: Authentication? = nil) -> AuthProvider {
        AuthProvider(host: host, httpScheme: isTLS ? .https : .http, port: port, authentication: authentication)
    }

    /// The generated client on `net`, with `provider` (this server's by default).
    func client(_ net: NetworkManager, provider: (any ServiceProvider)? = nil, host: String = "127.0.0.1") -> Client {
        Client(serverURL: serverURL(host: host), transport: NetworkLayerTransport(provider: provider ?? self.provider(host: host), manager: net))
    }
}

/// Runs `body` with a fresh ``OpenAPIServer``, stopped afterwards whatever happens.
func withOpenAPIServer<T>(basePath: String = "", tls: (certificate: URL, key: URL)? = nil, clientCA: URL? = nil,
                          _ body: (OpenAPIServer) async throws -> T) async throws -> T {
    try await withServer({ try OpenAPIServer.start(basePath: basePath, tls: tls, clientCA: clientCA) }, body)
}
#endif
