import Foundation
@testable import NetworkLayer

/// The id of the calling thread (from /proc/thread-self), or `nil`.
func currentThreadID() -> Int32? {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))
        .flatMap { Int32($0.split(separator: "/").last ?? "") }
}

/// The id of the library's libcurl thread, once a progress callback (which runs there) told it.
private let engineThreadID = Protected<Int32?>(nil)

/// Learns the id of the library's libcurl thread, with one request to `provider`'s `/ok`.
func learnEngineThread(via provider: some ServiceProvider) async {
    guard engineThreadID.withLock({ $0 }) == nil else { return }
    let probe = TestRequest<FaultOK>(provider, "/ok", timeout: 5)
    probe.onProgress = { _ in engineThreadID.withLock { $0 = $0 ?? currentThreadID() } }
    let net = NetworkManager()
    net.isVerbose = false
    _ = try? await net.perform(probe)
}

/// How long a thread has been runnable but waiting for a core (field 2 of
/// /proc/self/task/<tid>/schedstat), in nanoseconds.
private func coreWait(of thread: Int32?) -> Int {
    guard let thread, let stat = try? String(contentsOfFile: "/proc/self/task/\(thread)/schedstat", encoding: .utf8) else { return 0 }
    let fields = stat.split(separator: " ")
    return fields.count >= 2 ? Int(fields[1]) ?? 0 : 0
}

/// Runs `body` and returns its value with how long the library's libcurl thread and the
/// measuring executor's thread waited for a core meanwhile: runnable, but the machine ran
/// something else.
///
/// The timing tests allow this much on top of their bounds. On this two-core machine, with the
/// whole suite and its Python servers running in parallel, the libcurl thread (busy with every
/// test's transfers) was measured waiting a full second for a core within a 1.7 s request: that
/// is the machine, not the library. A delay of the library's own making (its thread busy with
/// other work, a lost wake-up, a timer set wrong) is not waiting for a core, so it still fails
/// the test. Call ``learnEngineThread(via:)`` first, or nothing is allowed for the libcurl thread.
func withCoreWaits<T: Sendable>(_ body: () async -> T) async -> (value: T, waited: Duration) {
    let threads = [engineThreadID.withLock { $0 }, ReliabilityExecutor.shared.threadID.withLock { $0 }]
    let before = threads.map(coreWait(of:))
    let value = await body()
    let after = threads.map(coreWait(of:))
    return (value, .nanoseconds(zip(after, before).map { $0 - $1 }.reduce(0, +)))
}
