import Synchronization

/// Counts calls from any thread.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    @discardableResult func increment() -> Int { count.add(1, ordering: .relaxed).newValue }
    var value: Int { count.load(ordering: .relaxed) }
}
