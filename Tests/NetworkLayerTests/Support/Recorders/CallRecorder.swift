import Foundation
@testable import NetworkLayer

/// Records every call of a completion handler, from any thread.
final class CallRecorder<Value: Sendable>: Sendable {
    private let calls = Protected<[Value]>([])

    func record(_ value: Value) {
        calls.withLock { $0.append(value) }
    }

    var values: [Value] { calls.withLock { $0 } }

    /// Waits until `count` calls arrived (or `limit` passed), then `settle` more, so that a
    /// call too many has time to show up too. Returns every call seen.
    func waitForCalls(count: Int = 1, limit: Duration = .seconds(5),
                      settle: Duration = .milliseconds(300)) async -> [Value] {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        while values.count < count, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
        try? await Task.sleep(for: settle)
        return values
    }

    /// Waits for the first call (at most `limit`) and returns when this loop saw it, or `nil`.
    func waitForFirstCall(limit: Duration = .seconds(5)) async -> ContinuousClock.Instant? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        while clock.now < deadline {
            if !values.isEmpty { return clock.now }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }
}
