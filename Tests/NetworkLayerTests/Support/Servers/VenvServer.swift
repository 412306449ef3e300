import Foundation
@testable import NetworkLayer

/// A Python server of `Tests/Servers` run by the `.venv`'s Python (botocore, pyspnego), on a
/// port the kernel picks; it exits when its stdin closes, like the others.
final class VenvServer: StoppableServer {
    private let server: ServerProcess
    var port: Int { server.port }

    init(_ script: String, _ arguments: [String] = []) throws {
        let python = HTTPBinServer.python
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw TestServerError(description: "\(python.path) is missing: run `make deps` to create the .venv")
        }
        server = try ServerProcess(python: [testsDirectory.appendingPathComponent("Servers/\(script)").path] + arguments,
                                   name: script, interpreter: python.path)
    }

    func stop() { server.stop() }
}

/// Runs `body` with `script` started by the `.venv`'s Python, and stops it afterwards.
func withVenvServer<T>(_ script: String, _ arguments: [String] = [], _ body: (VenvServer) async throws -> T) async throws -> T {
    try await withServer({ try VenvServer(script, arguments) }, body)
}
