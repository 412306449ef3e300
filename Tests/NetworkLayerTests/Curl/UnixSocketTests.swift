import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A provider with a `unixSocketPath` talks to a local daemon (Docker Engine, containerd) over
/// its socket: the provider's host and scheme still form the URL and the Host header.
@Suite("Unix sockets", .sharing)
struct UnixSocketTests {
    @Test("A request goes over the provider's socket, with the provider's host in the URL and the Host header")
    func requestOverTheSocket() async throws {
        try await withUnixSocketServer { server in
            let (echo, response) = try await makeManager().performWithResponse(
                TestRequest<SocketEcho>(server.provider(host: "docker.local"), "/v1.43/info", params: ["all": true]))
            #expect(echo.path == "/v1.43/info?all=true")
            #expect(echo.host == "docker.local")
            #expect(response.url.absoluteString == "http://docker.local/v1.43/info?all=true")
        }
    }

    @Test("Connections on a socket are kept alive and reused, as TCP ones are")
    func keepAliveReuse() async throws {
        try await withUnixSocketServer { server in
            let net = makeManager()
            for index in 1...5 {
                let echo = try await net.perform(TestRequest<SocketEcho>(server.provider(), "/ping/\(index)"))
                #expect(echo.request == index, "request \(index) came on connection \(echo.connection) as its request \(echo.request)")
            }
            let stats = try await net.perform(TestRequest<SocketStats>(server.provider(), "/stats"))
            #expect(stats.connections == 1)
            #expect(stats.requests == 6)
        }
    }

    @Test("Concurrent requests over one socket all get their own answers")
    func concurrentRequests() async throws {
        try await withUnixSocketServer { server in
            let net = makeManager()
            let paths = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<16 {
                    group.addTask { (index, try await net.perform(TestRequest<SocketEcho>(server.provider(), "/delay/0.1?n=\(index)")).path) }
                }
                return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
            }
            #expect(paths.count == 16)
            for (index, path) in paths { #expect(path == "/delay/0.1?n=\(index)") }
            // Kept alive: at most one connection per request in flight, then reused.
            let stats = try await net.perform(TestRequest<SocketStats>(server.provider(), "/stats"))
            #expect(stats.connections <= 16)
            #expect(stats.requests == 17)
        }
    }

    @Test("A missing socket file is .reachability naming the path")
    func missingSocket() async throws {
        let path = "/tmp/nl-missing-\(UUID().uuidString.prefix(8))/api.sock"
        let provider = SocketProvider(host: "localhost", httpScheme: .http, unixSocketPath: path)
        let error = await networkError { try await makeManager().perform(TestRequest<SocketEcho>(provider, "/info")) }
        #expect(error?.caseName == "reachability", "\(String(describing: error))")
        #expect(error?.context?.reason?.contains("there is no Unix socket at \(path)") == true, "\(String(describing: error))")
    }

    @Test("A socket file nobody listens on is .reachability naming the path")
    func socketNobodyListensOn() async throws {
        let path = try deadUnixSocket()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let provider = SocketProvider(host: "localhost", httpScheme: .http, unixSocketPath: path)
        let error = await networkError { try await makeManager().perform(TestRequest<SocketEcho>(provider, "/info")) }
        #expect(error?.caseName == "reachability", "\(String(describing: error))")
        #expect(error?.context?.reason?.contains("nothing is listening on the Unix socket \(path)") == true, "\(String(describing: error))")
    }

    @Test("A socket path that cannot be a socket address is refused before anything is sent",
          arguments: ["", "/tmp/a\u{0}b.sock", "/tmp/" + String(repeating: "x", count: 120)])
    func invalidPath(_ path: String) async throws {
        let provider = SocketProvider(host: "localhost", httpScheme: .http, unixSocketPath: path)
        let error = await networkError { try await makeManager().perform(TestRequest<SocketEcho>(provider, "/info")) }
        #expect(error?.caseName == "invalidRequest", "\(String(describing: error))")
        #expect(error?.context?.reason?.localizedCaseInsensitiveContains("socket") == true)
    }

    @Test("The environment's proxy is never used for a socket, and other providers are not sent to the socket")
    func noProxyAndNoLeak() async throws {
        try await withUnixSocketServer { server in
            let net = makeManager()
            net.proxy = .http(URL(string: "http://127.0.0.1:\(try closedPort())")!)
            let echo = try await net.perform(TestRequest<SocketEcho>(server.provider(), "/info"))
            #expect(echo.path == "/info")
            // The same host without the socket goes over TCP (and here through the dead proxy).
            let tcp = TestProvider(host: "localhost", httpScheme: .http, port: nil)
            let error = await networkError { try await net.perform(TestRequest<SocketEcho>(tcp, "/info")) }
            #expect(error?.caseName == "reachability")
            let stats = try await net.perform(TestRequest<SocketStats>(server.provider(), "/stats"))
            #expect(stats.requests == 2)
        }
    }

    @Test("Copy-as-curl carries --unix-socket, and the command works")
    func copyAsCurl() async throws {
        try await withUnixSocketServer { server in
            let command = try await makeManager().curlCommand(for: TestRequest<SocketEcho>(server.provider(), "/from-curl"))
            #expect(command.contains("--unix-socket '\(server.socketPath)'"), "\(command)")
            #expect(command.hasPrefix("curl -sS 'http://localhost/from-curl'"))
            let (status, output) = try await runShell(curlCommand(command, inserting: "--silent --show-error"))
            #expect(status == 0)
            let echo = try JSONDecoder().decode(SocketEcho.self, from: output)
            #expect(echo.path == "/from-curl")
        }
    }

    @Test("A pinned host reached over a socket without TLS is not checked, and the log says so")
    func pinningDoesNotApply() async throws {
        try await withUnixSocketServer { server in
            let log = LogCollector()
            let net = makeManager(log: log)
            net.certificatesDirectory = certificatesDirectory
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "localhost.pem")])], isEnabled: true)
            let echo = try await net.perform(TestRequest<SocketEcho>(server.provider(), "/pinned"))
            #expect(echo.path == "/pinned")
            #expect(log.text.contains("pinning does not apply: localhost is pinned, but this request goes over the Unix socket "
                                      + "\(server.socketPath) without TLS"), "\(log.text)")
        }
    }
}
