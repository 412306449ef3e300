extension NetworkManager {
    /// The library's libcurl thread as a task executor, for a task that does little but send
    /// requests and read their responses.
    ///
    /// A task that prefers it runs on the libcurl thread between rounds of I/O, as code on an
    /// event loop does: a response resumes the task where it arrived and the next request is sent
    /// in the same round, without two thread hand-offs per request (see <doc:PerformanceAndMetrics>).
    ///
    /// **Never block it**: while your code runs there, no transfer of any manager makes progress.
    /// No synchronous I/O, `DispatchSemaphore.wait` or long-held lock; run heavy work (decoding
    /// large bodies) without the preference, or in `withTaskExecutorPreference(nil)`.
    ///
    /// ```swift
    /// let users = try await withTaskExecutorPreference(NetworkManager.engineExecutor) {
    ///     var users: [User] = []
    ///     for id in ids { users.append(try await Net.perform(UserRequest(id: id))) }
    ///     return users
    /// }
    /// ```
    ///
    /// - Your code a request calls runs there too (`createHTTPHeaders()`, `adapt(_:)`,
    ///   `parseAndValidate(_:as:)`, the `validator`, a ``BearerTokenSource``'s `token`), except a
    ///   ``BearerTokenSource``'s `refresh`, which serves every waiting request from a task of its own.
    /// - Child tasks inherit the preference; actor-isolated code still runs on its actor.
    /// - Streams (``ByteStream``, ``EventStream``, ``JSONLines``) keep their backpressure;
    ///   completion handlers still run on ``completionQueue``.
    /// - Should libcurl fail to initialise, jobs go to the global concurrent executor: none is lost.
    ///
    /// Shared by every manager; usable from any thread.
    public static var engineExecutor: any TaskExecutor { CurlEngineExecutor.shared }
}
