/// The libcurl thread as a `TaskExecutor` (``NetworkManager/engineExecutor``): a task that
/// prefers it runs its code on that thread, between rounds of I/O, so a response resumes it where
/// it was received and its next request starts there too, without the two thread hand-offs per
/// request through Swift's global pool. Should the engine be unavailable (libcurl failed to
/// initialise), jobs go to the global concurrent executor, where such requests fail as they would
/// anyway: a job is never dropped. The engine thread never ends, so no job can arrive after it.
final class CurlEngineExecutor: TaskExecutor {
    static let shared = CurlEngineExecutor()

    private init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        switch CurlEngine.shared {
        case .success(let engine): engine.enqueue(UnownedJob(job))
        case .failure: globalConcurrentExecutor.enqueue(job)
        }
    }
}
