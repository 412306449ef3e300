import Foundation
@testable import NetworkLayer

/// `Tests/Servers/unix_socket_server.py`: HTTP/1.1 on a Unix socket in a fresh temporary
/// directory, counting connections and requests. Removed, directory and all, by ``stop()``.
final class UnixSocketServer: StoppableServer {
    let socketPath: String
    private let directory: URL
    private let server: ServerProcess

    /// Starts the server and waits until it listens. Blocks: call it off the cooperative pool.
    init() throws {
        // Short: a socket path must fit in 107 bytes, and TMPDIR can be long.
        directory = URL(fileURLWithPath: "/tmp/nl-sock-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        socketPath = directory.appendingPathComponent("api.sock").path
        server = try ServerProcess(python: [testsDirectory.appendingPathComponent("Servers/unix_socket_server.py").path, socketPath],
                                   name: "unix_socket_server.py")
    }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A provider for `host` over this socket.
    func provider(host: String = "localhost", scheme: HTTPScheme = .http) -> SocketProvider {
        SocketProvider(host: host, httpScheme: scheme, unixSocketPath: socketPath)
    }
}

/// A backend reached over a Unix socket.
struct SocketProvider: ServiceProvider {
    var host: String
    var httpScheme: HTTPScheme
    var unixSocketPath: String?
}

/// What `unix_socket_server.py` answers for an ordinary path.
struct SocketEcho: Decodable, Sendable {
    let path: String
    let host: String?
    let connection: Int
    let request: Int
    /// The request's `Cookie` header, if it had one.
    let cookie: String?
}

/// What `unix_socket_server.py` answers for `/stats`.
struct SocketStats: Decodable, Sendable {
    let connections: Int
    let requests: Int
}

/// Runs `body` with a fresh Unix socket server, stopped afterwards whatever happens.
func withUnixSocketServer<T>(_ body: (UnixSocketServer) async throws -> T) async throws -> T {
    try await withServer({ try UnixSocketServer() }, body)
}

/// A Unix socket file nobody listens on (bound, then closed), in a fresh temporary directory.
func deadUnixSocket() throws -> String {
    let directory = "/tmp/nl-dead-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/dead.sock"
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestServerError(description: "socket() failed") }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { bytes in
        for (index, byte) in path.utf8.enumerated() where index < bytes.count - 1 { bytes[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
    }
    guard bound else { throw TestServerError(description: "bind() failed for \(path)") }
    return path
}
