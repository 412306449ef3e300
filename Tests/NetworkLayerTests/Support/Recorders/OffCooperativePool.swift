import Dispatch

/// Runs blocking `work` on a Dispatch thread and waits for it without blocking the caller's thread.
func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

/// Runs blocking `work` on a Dispatch thread and waits for it without blocking the caller's thread.
func offCooperativePool(_ work: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            work()
            continuation.resume()
        }
    }
}
