import Foundation
@testable import NetworkLayer

/// The id of the library's libcurl thread, told by the progress callback (which runs there) of
/// one request to `provider` (any answer will do, a 404 included).
func engineThreadID(via provider: some ServiceProvider) async -> Int32? {
    let seen = Protected<Int32?>(nil)
    let probe = TestRequest<Echo>(provider, "/echo", timeout: 5)
    probe.onProgress = { _ in seen.withLock { $0 = $0 ?? currentThreadID() } }
    _ = try? await makeManager().perform(probe)
    return seen.withLock { $0 }
}

/// The CPU time (user and system) thread `id` of this process has used so far, from
/// /proc/self/task/<id>/stat (fields 14 and 15, in clock ticks), or `nil` if it cannot be read.
func cpuTime(ofThread id: Int32) -> Duration? {
    guard let stat = try? String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8),
          let nameEnd = stat.lastIndex(of: ")") else { return nil }
    // After the name: state (field 3) onwards.
    let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
    guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
    let ticksPerSecond = max(sysconf(Int32(_SC_CLK_TCK)), 1)
    return .milliseconds((user + system) * 1000 / ticksPerSecond)
}
