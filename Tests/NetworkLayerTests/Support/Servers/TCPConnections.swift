import Foundation

/// How many TCP connections to `port` on 127.0.0.1 are established from this machine's client
/// side, read from the kernel's table (/proc/net/tcp). A connection libcurl closed leaves that
/// state at once, so this sees a transfer release its connection without asking the server.
func establishedConnections(toPort port: Int) -> Int {
    guard let table = readProcFile("/proc/net/tcp") else { return 0 }
    let remote = String(format: ":%04X", port)
    var count = 0
    for line in table.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        // sl local_address rem_address st ...; state 01 is ESTABLISHED.
        guard fields.count > 3, fields[2].hasSuffix(remote), fields[3] == "01" else { continue }
        count += 1
    }
    return count
}

/// Waits until no connection to `port` is established (polling every millisecond, up to
/// `limit`); returns how long that took, or `nil` if it never happened.
func waitForConnectionsToClose(toPort port: Int, limit: Duration = .seconds(5)) async -> Duration? {
    let clock = ContinuousClock()
    let start = clock.now
    while clock.now - start < limit {
        if establishedConnections(toPort: port) == 0 { return clock.now - start }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return nil
}

/// A /proc file read to its end. /proc files report a size of 0 and answer a page per read, so
/// they are read until `read` returns 0 (Foundation's readers stop after the first short read).
private func readProcFile(_ path: String) -> String? {
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
    return String(decoding: bytes, as: UTF8.self)
}
