import Foundation
@testable import NetworkLayer

/// `Tests/Servers/websocket_server.py`: the `websockets` package (from the `.venv`) as the peer of
/// the conformance tests, on 127.0.0.1 (or a Unix socket), optionally over TLS.
final class WebSocketServer: StoppableServer {
    private let server: ServerProcess
    let socketPath: String?
    var port: Int { server.port }

    /// Starts the server. Blocks: call it off the cooperative pool.
    init(compression: String = "deflate", tls: (chain: String, key: String)? = nil, unixSocket: Bool = false) throws {
        var arguments = [testsDirectory.appendingPathComponent("Servers/websocket_server.py").path, "--compression", compression]
        if let tls {
            arguments += ["--tls", certificatesDirectory.appendingPathComponent(tls.chain).path,
                          certificatesDirectory.appendingPathComponent(tls.key).path]
        }
        socketPath = unixSocket ? FileManager.default.temporaryDirectory.appendingPathComponent("ws-\(UUID().uuidString.prefix(8)).sock").path : nil
        if let socketPath { arguments += ["--unix", socketPath] }
        server = try ServerProcess(python: arguments, name: "websocket_server.py", interpreter: HTTPBinServer.python.path)
    }

    func stop() {
        server.stop()
        if let socketPath { try? FileManager.default.removeItem(atPath: socketPath) }
    }

    func provider(headers: [String: String] = [:], scheme: HTTPScheme = .http, host: String = "127.0.0.1") -> TestProvider {
        TestProvider(host: host, httpScheme: scheme, port: port, headers: headers)
    }

    /// What the server recorded of the connection `id`.
    struct Stats: Decodable, Sendable {
        let code: Int?
        let reason: String?
        let messages: Int?
        let bytes: Int?
    }

    func stats(_ id: String) async throws -> Stats {
        try await makeManager().perform(TestRequest<Stats>(provider(), "/stats?id=\(id)", timeout: 5))
    }

    /// Waits until the server recorded a close code for `id` (at most `timeout`).
    func closeCode(_ id: String, within timeout: Duration = .seconds(5)) async throws -> Int? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let code = try await stats(id).code { return code }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}

func withWebSocketServer<T>(compression: String = "deflate", tls: (chain: String, key: String)? = nil, unixSocket: Bool = false,
                            _ body: (WebSocketServer) async throws -> T) async throws -> T {
    try await withServer({ try WebSocketServer(compression: compression, tls: tls, unixSocket: unixSocket) }, body)
}

/// `Tests/Servers/websocket_frames_server.py`: writes the bad frames of a scenario and records
/// what the client answers.
final class WebSocketFramesServer: StoppableServer {
    private let server: ServerProcess
    var port: Int { server.port }

    static let shared = Result { () throws -> WebSocketFramesServer in try WebSocketFramesServer() }

    private init() throws {
        server = try ServerProcess(python: ["-S", testsDirectory.appendingPathComponent("Servers/websocket_frames_server.py").path],
                                   name: "websocket_frames_server.py")
    }

    func stop() { server.stop() }

    func provider() -> TestProvider {
        TestProvider(host: "127.0.0.1", httpScheme: .http, port: port)
    }

    struct Results: Decodable, Sendable {
        let close: [CloseField]?
        let pings: Int?
        let pongs: Int?
        let written: Int?
        /// Seconds at the end of a flood in which the server could write nothing.
        let stalled: Double?
        let frames: [[Int]]?
        let unmasked: Bool?

        var closeCode: Int? { if case .code(let code)? = close?.first { return code } else { return nil } }
    }

    enum CloseField: Decodable, Sendable {
        case code(Int)
        case reason(String)
        case none

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let code = try? container.decode(Int.self) { self = .code(code) }
            else if let reason = try? container.decode(String.self) { self = .reason(reason) }
            else { self = .none }
        }
    }

    func results(_ id: String) async throws -> Results {
        try await makeManager().perform(TestRequest<Results>(provider(), "/results?id=\(id)", timeout: 5))
    }

    /// Waits until the server recorded the client's close frame for `id`.
    func closeCode(_ id: String, within timeout: Duration = .seconds(5)) async throws -> Int? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let code = try await results(id).closeCode { return code }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}

/// Runs `body` with the process's frame-level server: one for every test (each connection's
/// records are under its own id), started by the first, exiting with the test process.
func withWebSocketFramesServer<T>(_ body: (WebSocketFramesServer) async throws -> T) async throws -> T {
    try await body(try await offCooperativePool { try WebSocketFramesServer.shared.get() })
}

/// A WebSocket request for the tests.
final class SocketRequest: BaseRequest<WebSocket> {
    init(_ provider: any ServiceProvider, _ endpoint: String, protocols: [String] = [], options: WebSocketOptions? = nil,
         timeout: TimeInterval = TestTimeout.seconds(10)) {
        super.init(serviceProvider: provider, endpoint: endpoint)
        webSocketProtocols = protocols
        webSocketOptions = options
        requestTimeout = .seconds(timeout)
    }
}

/// Every message of `socket` until it ends, and how it ended.
func drain(_ socket: WebSocket) async -> (messages: [WebSocketMessage], error: NetworkError?) {
    var messages: [WebSocketMessage] = []
    do throws(NetworkError) {
        for try await message in socket { messages.append(message) }
        return (messages, nil)
    } catch {
        return (messages, error)
    }
}

/// A fresh id for a server's records.
func connectionID() -> String { String(UUID().uuidString.prefix(12)) }
