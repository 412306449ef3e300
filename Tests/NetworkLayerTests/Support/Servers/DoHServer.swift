import Foundation
@testable import NetworkLayer

/// `Tests/Servers/doh_server.py`: a DNS over HTTPS resolver on 127.0.0.1 answering every name's A
/// query with 127.0.0.1, well or badly as the URL's path says, and writing each query it got to an
/// events file. Presents `Certificates/localhost-chain.pem` (the test CA's) unless told another chain.
final class DoHServer: StoppableServer {
    private let server: ServerProcess
    private let events: URL
    var port: Int { server.port }

    static func start(chain: URL, key: URL) throws -> DoHServer {
        let events = FileManager.default.temporaryDirectory.appendingPathComponent("doh-events-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: events.path, contents: nil)
        let server = try ServerProcess(python: ["-S", testsDirectory.appendingPathComponent("Servers/doh_server.py").path,
                                                "--cert", chain.path, "--key", key.path,
                                                "--events", events.path],
                                       name: "doh_server.py")
        return DoHServer(server: server, events: events)
    }

    private init(server: ServerProcess, events: URL) {
        self.server = server
        self.events = events
    }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: events)
    }

    /// The resolver's URL for `path` (`/dns-query` answers well; see the server for the others).
    func url(_ path: String = "/dns-query") -> URL {
        URL(string: "https://127.0.0.1:\(port)\(path)")!
    }

    /// The queries received so far, as `<path> <type> <name>` lines (type 1: A, 28: AAAA).
    func queries() -> [String] {
        guard let handle = try? FileHandle(forReadingFrom: events) else { return [] }
        defer { try? handle.close() }
        let text = String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }
}

func withDoHServer<T>(chain: String = "localhost-chain.pem", key: String = "localhost.key",
                      _ body: (DoHServer) async throws -> T) async throws -> T {
    try await withDoHServer(chain: certificatesDirectory.appendingPathComponent(chain),
                            key: certificatesDirectory.appendingPathComponent(key), body)
}

func withDoHServer<T>(chain: URL, key: URL, _ body: (DoHServer) async throws -> T) async throws -> T {
    try await withServer({ try DoHServer.start(chain: chain, key: key) }, body)
}
