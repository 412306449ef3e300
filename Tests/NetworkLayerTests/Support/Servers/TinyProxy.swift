import Foundation

/// tinyproxy (Debian's package; `make deps` installs it) on a free port, with its configuration
/// and log in a fresh temporary directory: a real HTTP proxy that forwards plain requests and
/// opens CONNECT tunnels, optionally demanding Basic credentials.
final class TinyProxy: StoppableServer {
    let port: Int
    private let directory: URL
    private let daemon: DaemonProcess

    /// Starts tinyproxy and waits until it listens. Blocks: call it off the cooperative pool.
    init(username: String? = nil, password: String? = nil) throws {
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/tinyproxy") { try TestDependencies.install() }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tinyproxy") else {
            throw TestServerError(description: "tinyproxy is missing: run `make deps`")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tinyproxy-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try closedPort()
        var configuration = """
            Port \(port)
            Listen 127.0.0.1
            Timeout 30
            MaxClients 100
            Allow 127.0.0.1
            DisableViaHeader Yes
            LogFile "\(directory.appendingPathComponent("log").path)"
            LogLevel Connect

            """
        if let username, let password { configuration += "BasicAuth \(username) \(password)\n" }
        let file = directory.appendingPathComponent("tinyproxy.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        daemon = try DaemonProcess(["/usr/bin/tinyproxy", "-d", "-c", file.path], port: port, name: "tinyproxy")
        self.port = port
    }

    /// `http://127.0.0.1:<port>`.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The requests tinyproxy received, as it logs them (`GET http://…`, `CONNECT host:port`).
    var requests: [String] {
        let log = (try? String(contentsOf: directory.appendingPathComponent("log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            line.range(of: "Request (file descriptor ").map { range in
                String(line[range.upperBound...].drop { $0 != ":" }.dropFirst().drop { $0 == " " })
            }
        }
    }

    func stop() {
        daemon.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs `body` with a fresh tinyproxy, stopped afterwards whatever happens.
func withTinyProxy<T>(username: String? = nil, password: String? = nil, _ body: (TinyProxy) async throws -> T) async throws -> T {
    try await withServer({ try TinyProxy(username: username, password: password) }, body)
}
