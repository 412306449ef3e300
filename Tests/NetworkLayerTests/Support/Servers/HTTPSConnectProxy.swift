import Foundation

/// `Tests/Servers/https_connect_proxy.py`: an HTTPS proxy with a CA of its own and a certificate
/// for 127.0.0.1 only, tunnelling CONNECT requests. Its CA is ``caCertificate``.
final class HTTPSConnectProxy: StoppableServer {
    private let directory: URL
    private let server: ServerProcess
    var port: Int { server.port }

    /// Starts the proxy and waits until it listens. Blocks: call it off the cooperative pool.
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("https-proxy-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        server = try ServerProcess(python: [testsDirectory.appendingPathComponent("Servers/https_connect_proxy.py").path, directory.path],
                                   name: "https_connect_proxy.py", interpreter: HTTPBinServer.python.path)
    }

    /// `https://127.0.0.1:<port>`.
    var url: URL { URL(string: "https://127.0.0.1:\(port)")! }

    var caCertificate: URL { directory.appendingPathComponent("proxy-ca.pem") }

    /// The `host:port` of every CONNECT so far.
    var connects: [String] {
        let log = (try? String(contentsOf: directory.appendingPathComponent("connects.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map(String.init)
    }

    /// A PEM bundle of the test CA and this proxy's CA, in the proxy's directory.
    func bundleWithTestCA() throws -> URL {
        let bundle = directory.appendingPathComponent("bundle.pem")
        let test = try Data(contentsOf: certificatesDirectory.appendingPathComponent("TestCABundle.pem"))
        try (test + Data("\n".utf8) + Data(contentsOf: caCertificate)).write(to: bundle)
        return bundle
    }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs `body` with a fresh HTTPS proxy, stopped afterwards whatever happens.
func withHTTPSConnectProxy<T>(_ body: (HTTPSConnectProxy) async throws -> T) async throws -> T {
    try await withServer({ try HTTPSConnectProxy() }, body)
}
