import Foundation

/// mitmproxy's `mitmdump` (from `.venv`) on a free port, in regular mode unless told (`socks5`): an intercepting proxy
/// that answers each CONNECT with a certificate of its own CA for the requested host. It trusts
/// the test CA upstream. Its CA (created on first start) is in ``caCertificate``.
final class MitmProxy: StoppableServer {
    let port: Int
    private let directory: URL
    private let daemon: DaemonProcess

    static let executable = TestDependencies.installed(repositoryRoot.appendingPathComponent(".venv/bin/mitmdump"))

    /// Starts mitmdump and waits until it listens (a few seconds). Blocks: call it off the cooperative pool.
    init(mode: String = "regular") throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw TestServerError(description: "\(Self.executable.path) is missing: run `make deps` to create the .venv with mitmproxy")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mitmproxy-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try closedPort()
        daemon = try DaemonProcess([Self.executable.path, "--quiet", "--mode", mode, "--listen-host", "127.0.0.1", "--listen-port", String(port),
                                    "--set", "confdir=\(directory.path)",
                                    "--set", "ssl_verify_upstream_trusted_ca=\(certificatesDirectory.appendingPathComponent("TestCABundle.pem").path)"],
                                   port: port, name: "mitmdump", startTimeout: 60)
        self.port = port
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The CA mitmproxy signs its certificates with, as PEM.
    var caCertificate: URL { directory.appendingPathComponent("mitmproxy-ca-cert.pem") }

    func stop() {
        daemon.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs `body` with a fresh mitmdump, stopped afterwards whatever happens.
func withMitmProxy<T>(mode: String = "regular", _ body: (MitmProxy) async throws -> T) async throws -> T {
    try await withServer({ try MitmProxy(mode: mode) }, body)
}
