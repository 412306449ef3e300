import Foundation

/// A port that accepts no connection: a socket listening with the smallest backlog, its accept
/// queue filled by connections nobody accepts, so the kernel drops every further SYN and a
/// client's connect waits until its own timeout. Closed by ``close()``.
final class BlackholeListener: @unchecked Sendable {
    // @unchecked Sendable: the file descriptors are set in init and only closed after.
    let port: Int
    private let listener: Int32
    private var fillers: [Int32] = []

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        guard listener >= 0 else { throw TestServerError(description: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound, listen(listener, 0) == 0 else { throw TestServerError(description: "bind() or listen() failed") }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Fill the accept queue (backlog 0 holds one; a few more in case the kernel rounds up),
        // each connect non-blocking so the one that would wait does not block here.
        for _ in 0..<4 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard filler >= 0 else { continue }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
            }
            fillers.append(filler)
        }
        usleep(100_000)  // the handshakes of the filling connections complete
    }

    func close() {
        for filler in fillers { Glibc.close(filler) }
        Glibc.close(listener)
    }
}
