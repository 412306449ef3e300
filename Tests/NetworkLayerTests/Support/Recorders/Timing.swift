import Foundation
@testable import NetworkLayer

/// Runs `body` and returns its result with how long it took.
func measure<T>(_ body: () async throws -> T) async rethrows -> (value: T, elapsed: Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let value = try await body()
    return (value, start.duration(to: clock.now))
}

/// A task executor with a Dispatch queue of its own, for the tests that measure latency.
///
/// A task that prefers it (`Task(executorPreference:)`) runs, and resumes after each `await`,
/// on this queue rather than on the cooperative pool. The pool has one thread per core and
/// parallel tests keep it busy (JSON-encoding 5 MB bodies, decoding hundreds of answers), so a
/// task resumed there can wait hundreds of milliseconds for a thread: the measurement would be
/// of the other tests, not of the library.
final class DedicatedExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "NetworkLayerTests.DedicatedExecutor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// The duration libcurl itself reports in a timeout message ("Operation timed out after 1001
/// milliseconds with 0 bytes received"), which no scheduling delay on the Swift side can inflate.
func curlReportedTimeout(_ error: NetworkError?) -> Duration? {
    guard let message = (error?.underlyingError as? CurlError)?.message,
          let range = message.range(of: #"after \d+ milliseconds"#, options: .regularExpression) else { return nil }
    let digits = message[range].dropFirst("after ".count).prefix { $0.isNumber }
    return Int(digits).map { .milliseconds($0) }
}
