import Foundation

/// How many TCP connections to `port` on 127.0.0.1 are established from this machine's client
/// side, read from the kernel's table (/proc/net/tcp). A connection libcurl closed leaves that
/// state at once, so this sees a transfer release its connection without asking the server.
func establishedConnections(toPort port: Int) -> Int {
    guard let table = readProcFile("/proc/net/tcp") else { return 0 }
    return countEstablished(in: table, toPort: port)
}

/// Waits until no connection to `port` is established (polling every millisecond, up to
/// `limit`); returns how long that took, or `nil` if it never happened.
///
/// The time is taken when the table is read, before it is counted: the kernel writes the table
/// during the read, so that is when it showed the connection gone. The table holds every socket
/// the suite left in TIME_WAIT (thousands after a full run); splitting it into strings took 25 ms
/// per read in a debug build and 41 ms under ThreadSanitizer for 3,000 lines, which a close's
/// measured latency included (a CI run: 123 ms against a bound of 105 ms). Counted on the bytes it
/// takes 0.15 and 0.5 ms.
func waitForConnectionsToClose(toPort port: Int, limit: Duration = .seconds(5)) async -> Duration? {
    let clock = ContinuousClock()
    let start = clock.now
    while clock.now - start < limit {
        let read = clock.now
        if let table = readProcFile("/proc/net/tcp"), countEstablished(in: table, toPort: port) == 0 {
            return read - start
        }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return nil
}

/// The connections of a /proc/net/tcp table in state ESTABLISHED (`01`) whose remote port is
/// `port`. Each line is `sl: local_address rem_address st ...`, the addresses as `%08X:%04X`
/// (IPv4), so the fields after the first colon are at fixed places; they are compared with
/// `memchr` and `memcmp` on the bytes, so that a table of thousands of sockets is counted in
/// well under a millisecond even in a debug build under ThreadSanitizer.
func countEstablished(in table: [UInt8], toPort port: Int) -> Int {
    let wanted = Array(String(format: "%04X 01", port).utf8)  // rem_address's port, a space, the state
    return table.withUnsafeBufferPointer { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        let end = base + buffer.count
        // Past the header line.
        guard let header = memchr(base, 0x0A, buffer.count) else { return 0 }
        var line = UnsafePointer(header.assumingMemoryBound(to: UInt8.self)) + 1
        var count = 0
        while line < end {
            let lineEnd = memchr(line, 0x0A, line.distance(to: end)).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) } ?? end
            // "   0: 0100007F:C350 0100007F:1F90 01 ...": after the colon that ends `sl`, a space,
            // the local address (13), a space, the remote address (13), a space, the state.
            if let found = memchr(line, 0x3A, line.distance(to: lineEnd)) {
                let colon = UnsafePointer(found.assumingMemoryBound(to: UInt8.self))
                let remotePort = colon + 2 + 13 + 1 + 9
                if remotePort + wanted.count <= lineEnd, colon[1] == 0x20, (remotePort - 1).pointee == 0x3A,
                   memcmp(remotePort, wanted, wanted.count) == 0 {
                    count += 1
                }
            }
            line = lineEnd + 1
        }
        return count
    }
}

/// A /proc file read to its end. /proc files report a size of 0 and answer a page per read, so
/// they are read until `read` returns 0 (Foundation's readers stop after the first short read).
func readProcFile(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        bytes += buffer[0..<count]
    }
    return bytes
}
