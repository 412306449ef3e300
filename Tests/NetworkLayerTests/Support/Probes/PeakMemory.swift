import Foundation
import Synchronization

/// The process's resident memory in bytes, from /proc.
func residentMemory() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
    return kilobytes * 1024
}

/// Samples the resident set size every 2 ms on a thread of its own while `body` runs, and
/// returns `body`'s value with the growth of the peak over the size before it started.
///
/// A peak, not a before/after difference: a 50 MB body that is allocated and freed during the
/// request would not show in the size afterwards.
func peakMemoryGrowth<T: Sendable>(during body: () async throws -> T) async rethrows -> (value: T, growth: Int) {
    let sampler = MemorySampler()
    let value: T
    do {
        value = try await body()
    } catch {
        _ = await sampler.stop()
        throw error
    }
    return (value, await sampler.stop())
}

/// The thread behind ``peakMemoryGrowth(during:)``.
private final class MemorySampler: Sendable {
    private let baseline = residentMemory()
    private let peak = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)

    init() {
        peak.store(baseline, ordering: .relaxed)
        let thread = Thread { [self] in
            while running.load(ordering: .acquiring) {
                let current = residentMemory()
                if current > peak.load(ordering: .relaxed) { peak.store(current, ordering: .relaxed) }
                usleep(2000)
            }
            finished.signal()
        }
        thread.start()
    }

    /// Stops sampling; returns the peak's growth over the baseline, in bytes.
    func stop() async -> Int {
        running.store(false, ordering: .releasing)
        await offCooperativePool { [finished] in finished.wait() }
        return max(peak.load(ordering: .relaxed), residentMemory()) - baseline
    }
}
