import Foundation
@testable import NetworkLayer

/// An executor with a thread of its own, for the tasks whose latency is measured: they resume
/// there, not on the cooperative pool nor on Dispatch's, which parallel suites keep busy (and
/// block, waiting for processes): the measurement would be of the other tests, not of the library.
final class ReliabilityExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` is behind a lock; the semaphore and thread are thread-safe.
    static let shared = ReliabilityExecutor()

    private let jobs = Protected<[UnownedJob]>([])
    private let available = DispatchSemaphore(value: 0)
    /// The executor thread's id, for its scheduler statistics.
    let threadID = Protected<Int32?>(nil)

    private init() {
        let thread = Thread { [self] in
            threadID.withLock { $0 = currentThreadID() }
            while true {
                available.wait()
                guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
        thread.name = "NetworkLayerTests.ReliabilityExecutor"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        available.signal()
    }
}

/// Runs `body` in a task on the ``ReliabilityExecutor`` and returns its value with how long it took.
func timedOnOwnExecutor<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> (value: T, elapsed: Duration) {
    await Task(executorPreference: ReliabilityExecutor.shared) {
        let clock = ContinuousClock()
        let start = clock.now
        let value = await body()
        return (value, start.duration(to: clock.now))
    }.value
}
