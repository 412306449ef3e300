import Foundation
@testable import NetworkLayer

/// A collector of pinning reports on 127.0.0.1: `Tests/Servers/report_server.py`, which stores
/// every report POSTed to it and answers what a test asks for (204, another status, or never).
///
/// Like ``TestServer`` it exits when its stdin closes, so it cannot outlive the test process.
final class ReportServer: StoppableServer {
    let isTLS: Bool
    private let server: ServerProcess

    var port: Int { server.port }

    /// Starts the server and waits for its port. With `tls` (a chain file and its key) it speaks
    /// HTTPS. Blocks: call it off the cooperative pool.
    static func start(tls: (chain: URL, key: URL)? = nil) throws -> ReportServer {
        var arguments = ["-S", testsDirectory.appendingPathComponent("Servers/report_server.py").path]
        if let tls { arguments += ["--tls-cert", tls.chain.path, "--tls-key", tls.key.path] }
        return ReportServer(server: try ServerProcess(python: arguments, name: "report_server.py"), isTLS: tls != nil)
    }

    private init(server: ServerProcess, isTLS: Bool) {
        self.server = server
        self.isTLS = isTLS
    }

    /// Stops the server and waits for it to exit. Blocks: call it off the cooperative pool.
    func stop() { server.stop() }

    /// The report URI: a report POSTed to it is stored, then answered with 204, with `status`
    /// instead, or, with `hang`, never (the connection stays open until the server stops).
    func url(path: String = "/report", status: Int? = nil, hang: Bool = false, host: String = "127.0.0.1") -> URL {
        let base = "\(isTLS ? "https" : "http")://\(host):\(port)"
        guard let url = URL(string: base + endpoint(path: path, status: status, hang: hang)) else {
            preconditionFailure("\(path) is not a path")
        }
        return url
    }

    /// The report URI's path and query, for a request through ``provider(host:)``.
    func endpoint(path: String = "/report", status: Int? = nil, hang: Bool = false) -> String {
        var query: [String] = []
        if let status { query.append("status=\(status)") }
        if hang { query.append("hang=1") }
        return path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// A provider pointing at this server.
    func provider(host: String = "127.0.0.1") -> TestProvider {
        TestProvider(host: host, httpScheme: isTLS ? .https : .http, port: port)
    }

    /// One report as the server stored it.
    struct Report: Decodable, Sendable {
        let method: String
        /// The path as requested, query included (`/report?status=500`).
        let path: String
        /// The request's headers; a name sent twice has its values joined by ", ".
        let headers: [String: String]
        /// The body parsed as JSON; nil when it is not JSON.
        let body: JSONValue?
        /// The body as text (UTF-8, bad bytes replaced).
        let raw: String

        /// The value of the header `name`, whatever its case.
        func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    private struct Count: Decodable, Sendable {
        let count: Int
    }

    /// Every report received so far (hanging ones included), oldest first.
    func reports() async throws -> [Report] {
        try await queryManager().perform(TestRequest<[Report]>(provider(), "/reports", timeout: 5))
    }

    /// How many reports the server has received (hanging ones and those answered with an error included).
    func count() async throws -> Int {
        try await queryManager().perform(TestRequest<Count>(provider(), "/reports/count", timeout: 5)).count
    }

    /// Forgets every report received so far.
    func reset() async throws {
        _ = try await queryManager().perform(TestRequest<Count>(provider(), "/reports", method: .delete, timeout: 5))
    }

    /// A manager of its own for the server's own endpoints, trusting the test CA (which any chain
    /// the tests give the server is issued under).
    private func queryManager() -> NetworkManager {
        isTLS ? makeTLSManager() : makeManager()
    }
}

/// Runs `body` with a fresh report server (HTTPS with `tls`), stopped afterwards whatever happens.
func withReportServer<T>(tls: (chain: URL, key: URL)? = nil, _ body: (ReportServer) async throws -> T) async throws -> T {
    try await withServer({ try ReportServer.start(tls: tls) }, body)
}
