import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The per-origin queue itself, without a server: waiters admitted and cancelled by the hundred thousand.
@Suite("Origin queue", .sharing)
struct OriginQueueTests {
    let origin = Origin(URL(string: "http://queue.test:8080/")!)!

    @Test("100,000 waiters cancelled at once all leave with .cancelled, quickly, and the queue is empty afterwards", .measuring)
    func hundredThousandCancelled() async throws {
        let queues = OriginQueues()
        let origin = self.origin
        #expect(await queues.admit(to: origin, limit: 1, priority: .normal).isImmediate)
        // Under a sanitizer (its timeouts scaled) a tenth: the race checks, not the figure, matter there.
        let count = TestTimeout.scale > 1 ? 10_000 : 100_000
        let cancelled = Protected(0)
        let group = Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    group.addTask {
                        let priority = RequestPriority(index % 3)
                        if case .cancelled = await queues.admit(to: origin, limit: 1, priority: priority) { cancelled.withLock { $0 += 1 } }
                    }
                }
            }
        }
        #expect(await waitUntil(limit: .seconds(120)) { queues.state(of: origin)?.queued == count } != nil)
        let started = ContinuousClock.now
        group.cancel()
        await group.value
        let took = started.duration(to: .now)
        #expect(cancelled.withLock { $0 } == count)
        #expect(queues.state(of: origin) == TrafficState(limit: 1, inFlight: 1, queued: 0))
        #expect(took < .seconds(TestTimeout.seconds(10)), "cancelling \(count) took \(took)")
        print("OriginQueueTests: \(count) queued waiters cancelled in \(took)")
        queues.release(origin, latency: nil)
        #expect(queues.state(of: origin) == nil, "an idle fixed-limit origin is forgotten")
    }

    @Test("A place given back goes to the oldest of the highest priority, and a raised limit lets waiters in at once")
    func grantsInOrder() async throws {
        let queues = OriginQueues()
        let origin = self.origin
        #expect(await queues.admit(to: origin, limit: 1, priority: .normal).isImmediate)
        let order = Protected<[String]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, priority) in [("low", RequestPriority.low), ("normal", .normal), ("high", .high), ("high2", .high)] {
                let before = queues.state(of: origin)?.queued ?? 0
                group.addTask {
                    guard case .granted = await queues.admit(to: origin, limit: 1, priority: priority) else { return }
                    order.withLock { $0.append(name) }
                    queues.release(origin, latency: nil)
                }
                await waitUntil { (queues.state(of: origin)?.queued ?? 0) > before }
            }
            queues.release(origin, latency: nil)
            try await group.waitForAll()
        }
        #expect(order.withLock { $0 } == ["high", "high2", "normal", "low"])
        // A higher limit for the origin lets the queue in without a release.
        #expect(await queues.admit(to: origin, limit: 1, priority: .normal).isImmediate)
        let waiter = Task { await queues.admit(to: origin, limit: 1, priority: .normal) }
        await waitUntil { queues.state(of: origin)?.queued == 1 }
        #expect(await queues.admit(to: origin, limit: 3, priority: .normal).isImmediate)
        guard case .granted = await waiter.value else { Issue.record("the waiter was not let in"); return }
        #expect(queues.state(of: origin) == TrafficState(limit: 3, inFlight: 3, queued: 0))
    }
}

extension OriginQueues.Admission {
    var isImmediate: Bool {
        if case .immediate = self { return true }
        return false
    }
}
