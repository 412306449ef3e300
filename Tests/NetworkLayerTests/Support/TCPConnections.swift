import Foundation

/// How many TCP connections to `port` on 127.0.0.1 are established from this machine's client
/// side, read from the kernel's table (/proc/net/tcp). A connection libcurl closed leaves that
/// state at once, so this sees a transfer release its connection without asking the server.
func establishedConnections(toPort port: Int) -> Int {
    guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return 0 }
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
