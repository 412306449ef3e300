/// The running request started by ``NetworkManager/performRequest(request:completion:)``.
///
/// Keep it to cancel the request; dropping it does not cancel anything.
public final class RequestHandle: Sendable {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) { self.task = task }

    /// Stops the request. Its completion then runs with ``NetworkError/cancelled`` (unless it had
    /// already finished, in which case it has already run). Safe to call more than once, from any thread.
    public func cancel() { task.cancel() }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { task.isCancelled }
}
