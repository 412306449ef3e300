import Dispatch
import Synchronization

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
