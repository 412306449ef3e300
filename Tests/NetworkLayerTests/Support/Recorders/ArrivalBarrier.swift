/// Holds callers until `count` of them have arrived (or `timeout` passed), then lets them all go:
/// for tests whose outcome needs concurrent callers to reach a point together, whatever the
/// machine's load (a sanitizer run starts tasks slowly).
actor ArrivalBarrier {
    private let count: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { self.count = count }

    /// Waits until `count` callers have called it, or `timeout` passed (then it returns anyway,
    /// and the test's own expectations report what did not happen).
    func arrive(timeout: Duration = .seconds(10)) async {
        arrived += 1
        if arrived >= count {
            release()
            return
        }
        let deadline = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.release()
        }
        await withCheckedContinuation { waiting.append($0) }
        deadline.cancel()
    }

    private func release() {
        let released = waiting
        waiting = []
        for continuation in released { continuation.resume() }
    }
}
