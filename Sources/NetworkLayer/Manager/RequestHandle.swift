import Dispatch
import Synchronization

/// The running request started by ``NetworkManager/performRequest(request:completion:)``.
///
/// Keep it to cancel the request; dropping it does not cancel anything.
public final class RequestHandle: Sendable {
    private let task: Task<Void, Never>
    private let cancelled: @Sendable () -> Void

    init(_ task: Task<Void, Never>, onCancel: @escaping @Sendable () -> Void) {
        self.task = task
        cancelled = onCancel
    }

    /// Stops the request. Its completion then runs at once with ``NetworkError/cancelled`` (unless
    /// the request had already finished, in which case it has already run). Safe to call more
    /// than once, from any thread.
    public func cancel() {
        task.cancel()
        cancelled()
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { task.isCancelled }
}

/// Delivers a completion handler's result exactly once, on its queue, whichever comes first:
/// the request's own outcome or a cancellation through its handle.
final class CompletionGate<Value: Sendable>: Sendable {
    private let delivered = Atomic<Bool>(false)
    private let queue: DispatchQueue
    private let completion: @Sendable (Result<Value, NetworkError>) -> Void

    init(queue: DispatchQueue, completion: @escaping @Sendable (Result<Value, NetworkError>) -> Void) {
        self.queue = queue
        self.completion = completion
    }

    func deliver(_ result: Result<Value, NetworkError>) {
        guard !delivered.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [completion] in completion(result) }
    }
}
