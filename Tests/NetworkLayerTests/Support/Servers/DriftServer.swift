import Foundation
@testable import NetworkLayer

/// A backend whose answers the test sets (`Tests/Servers/drift_server.py`): the staging server a
/// mock is checked against, changed between recording and checking.
final class DriftServer: StoppableServer {
    private let server: ServerProcess
    var port: Int { server.port }

    /// Starts the server and waits for its port. Blocks: call it off the cooperative pool.
    init() throws {
        server = try ServerProcess(python: ["-S", testsDirectory.appendingPathComponent("Servers/drift_server.py").path],
                                   name: "drift_server.py")
    }

    func stop() { server.stop() }

    /// A provider pointing at this server.
    var provider: TestProvider { TestProvider(host: "127.0.0.1", httpScheme: .http, port: port) }

    /// From now on `path` answers `body` with `status`, `contentType` and `headers`.
    func set(_ path: String, _ body: String, status: Int = 200, contentType: String = "application/json",
             headers: [String: String] = [:]) async throws {
        var control = ["X-Answer-Status": "\(status)", "X-Answer-Type": contentType]
        for (name, value) in headers { control["X-Answer-Header-\(name)"] = value }
        _ = try await makeManager().perform(BodyRequest<EmptyResponse>(provider, "/_answer" + path, method: .put,
                                                                           body: .data(Data(body.utf8), contentType: "application/json"),
                                                                           headers: control, timeout: 10))
    }

    /// From now on `path` answers a JSON array of `count` small objects, made by the server.
    func setBig(_ path: String, count: Int) async throws {
        _ = try await makeManager().perform(TestRequest<EmptyResponse>(provider, "/_big" + path + "?count=\(count)", method: .put,
                                                                           timeout: 10))
    }
}
