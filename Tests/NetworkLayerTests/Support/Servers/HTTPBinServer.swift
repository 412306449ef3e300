import Foundation
@testable import NetworkLayer

/// httpbin on 127.0.0.1 (`Tests/Servers/httpbin_server.py`, run by the `.venv` that `make deps`
/// creates), on a port the kernel picks. It exits when its stdin closes, like the other servers.
final class HTTPBinServer: Sendable {
    private let server: ServerProcess
    var port: Int { server.port }

    /// The `.venv`'s Python, which has httpbin (the `.venv` made on first use if missing).
    static let python = TestDependencies.installed(repositoryRoot.appendingPathComponent(".venv/bin/python"))

    private static let sharedServer = Result { () throws -> HTTPBinServer in try HTTPBinServer() }

    /// One httpbin for the whole test process, started by the first test that asks (importing
    /// httpbin costs about a second of CPU). Never stopped: it exits with the test process.
    static func shared() async throws -> HTTPBinServer {
        try await offCooperativePool { try sharedServer.get() }
    }

    private init() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python.path) else {
            throw TestServerError(description: "\(Self.python.path) is missing: run `make deps` to create the .venv with httpbin")
        }
        server = try ServerProcess(python: [testsDirectory.appendingPathComponent("Servers/httpbin_server.py").path],
                                   name: "httpbin", interpreter: Self.python.path)
    }

    /// A provider pointing at this httpbin.
    func provider(headers: [String: String] = [:]) -> TestProvider {
        TestProvider(host: "127.0.0.1", httpScheme: .http, port: port, headers: headers)
    }
}
