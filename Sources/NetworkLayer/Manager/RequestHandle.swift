import Dispatch

/// The running request started by ``NetworkManager/performRequest(request:completion:)``.
/// Keep it to cancel the request; dropping it does not cancel anything.
public final class RequestHandle: Sendable {
    private let task: Task<Void, Never>
    private let cancelled: @Sendable () -> Void

    init(_ task: Task<Void, Never>, onCancel: @escaping @Sendable () -> Void) {
        self.task = task
        cancelled = onCancel
    }

    /// Stops the request; its completion runs at once with ``NetworkError/cancelled`` unless it
    /// already ran. Safe to call more than once, from any thread.
    public func cancel() {
        task.cancel()
        cancelled()
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { task.isCancelled }
}
