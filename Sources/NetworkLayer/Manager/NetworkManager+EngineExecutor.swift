extension NetworkManager {
    /// The library's libcurl thread as a task executor: the shortest path for a task that does
    /// little but send requests and read their responses.
    ///
    /// By default a response reaches your task through Swift's global concurrent pool: the libcurl
    /// thread resumes the task there, and the task's next request goes back to the libcurl thread,
    /// two thread hand-offs per request. A task that prefers this executor runs its code on the
    /// libcurl thread itself, between rounds of I/O, as code on a SwiftNIO event loop does: a
    /// response resumes the task where it arrived, and the next request is sent in the same round,
    /// without waking another thread. Measured on small requests, that halves the CPU time per
    /// request when they are sequential and saves about a third at 32 in parallel (see <doc:PerformanceAndMetrics>
    /// and `Benchmarks/RESULTS.md`).
    ///
    /// The rule is an event loop's: **never block it.** While your code runs there, no transfer of
    /// any manager makes progress. Keep the work between two `await`s short; no synchronous file or
    /// network I/O, no `DispatchSemaphore.wait`, no lock held for long, no waiting for a completion
    /// handler. Heavy work (decoding large bodies, image processing) belongs on the global pool:
    /// run it in a task without the preference, or with `withTaskExecutorPreference(nil)`.
    ///
    /// ```swift
    /// let users = try await withTaskExecutorPreference(NetworkManager.engineExecutor) {
    ///     var users: [User] = []
    ///     for id in ids { users.append(try await Net.perform(UserRequest(id: id))) }
    ///     return users
    /// }
    /// ```
    ///
    /// - Your code that a request calls runs in its task, so there too: the provider's
    ///   `createHTTPHeaders()`, `adapt(_:)` and `parseAndValidate(_:as:)`, the request's `validator`
    ///   and a ``BearerTokenSource``'s `token`. A ``BearerTokenSource``'s `refresh` is the exception:
    ///   it runs in a task of its own on the global pool, as it serves every request waiting for it.
    /// - Child tasks inherit the preference (a task group's tasks too); `Task(executorPreference:)`
    ///   starts an unstructured task with it. Code isolated to an actor (`@MainActor`, your own
    ///   actors) still runs on that actor's executor.
    /// - Everything works as on the global pool: cancellation, timeouts, retries, uploads from an
    ///   `AsyncSequence`, and streamed responses (``ByteStream``, ``EventStream``, ``JSONLines``),
    ///   whose backpressure still pauses the transfer while the consumer is behind. Completion
    ///   handlers run on ``completionQueue`` as always.
    /// - Jobs are never lost: should libcurl fail to initialise (every live request then fails),
    ///   the executor hands its jobs to the global concurrent executor.
    ///
    /// Thread safety: the executor is shared by every manager and may be used from any thread.
    public static var engineExecutor: any TaskExecutor { CurlEngineExecutor.shared }
}
