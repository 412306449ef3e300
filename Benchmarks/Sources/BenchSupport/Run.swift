#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// What one request produced: the body bytes it received, and whether it passed every check.
public struct Outcome: Sendable {
    public var ok: Bool
    public var bytes: Int

    public init(ok: Bool, bytes: Int) {
        self.ok = ok
        self.bytes = bytes
    }

    /// A request that failed before it had a body (a thrown error); `why` goes to standard error.
    public static func failed(_ why: @autoclosure () -> String) -> Outcome {
        Failures.report(why())
        return Outcome(ok: false, bytes: 0)
    }

    /// Checks one response the same way in every client: status 200, the expected body size
    /// (`--expect-bytes`), when decoding or counting events the expected item or event count
    /// (`--expect-items`), and for events the total size of their data (`--expect-data`).
    public static func check(status: Int, bytes: Int, items: Int? = nil, dataBytes: Int? = nil,
                             options: Options) -> Outcome {
        var problem: String?
        if status != 200 {
            problem = "status \(status)"
        } else if let expected = options.expectBytes, bytes != expected {
            problem = "\(bytes) body bytes, expected \(expected)"
        } else if let items, let expected = options.expectItems, items != expected {
            problem = "\(items) \(options.events ? "events" : "items decoded"), expected \(expected)"
        } else if let dataBytes, let expected = options.expectData, dataBytes != expected {
            problem = "\(dataBytes) bytes of event data, expected \(expected)"
        }
        if let problem { Failures.report(problem) }
        return Outcome(ok: problem == nil, bytes: bytes)
    }
}

/// The first few failure reasons, printed to standard error (the result line's `ok` counts them all).
enum Failures {
    private static let printed = Atomic<Int>(0)

    static func report(_ why: String) {
        let (count, _) = printed.add(1, ordering: .relaxed)
        if count <= 5 { printError("request failed: \(why)\n") }
    }
}

/// Writes `text` to standard error (file descriptor 2: the C `stderr` global is not concurrency-safe).
public func printError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

/// The totals of a run.
public struct Tally: Sendable {
    public var ok = 0
    public var bytes = 0
    /// The CPU time of the whole process (every thread) from the first request to the last response:
    /// without the start-up, which outweighs a run that lasts milliseconds (scenario 6).
    public var cpuSeconds = 0.0
}

/// The CPU time the process has used so far, all threads, in seconds.
func processCPUSeconds() -> Double {
    var time = timespec()
    guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return 0 }
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// Runs `requests` jobs with `concurrency` of them in flight, and times them.
///
/// Each of `concurrency` child tasks runs its share of the jobs one after another (job `i` goes to
/// worker `i % concurrency`), so exactly `concurrency` requests are outstanding until the tail.
/// Counting is per worker and summed at the end: no shared counter on the hot path.
public func runRequests(
    _ options: Options,
    job: @escaping @Sendable (_ index: Int) async -> Outcome
) async -> (Tally, Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let cpuStart = processCPUSeconds()
    var tally = await withTaskGroup(of: Tally.self) { group in
        for worker in 0..<options.concurrency {
            group.addTask {
                var tally = Tally()
                for index in stride(from: worker, to: options.requests, by: options.concurrency) {
                    let outcome = await job(index)
                    if outcome.ok { tally.ok += 1 }
                    tally.bytes += outcome.bytes
                }
                return tally
            }
        }
        var total = Tally()
        for await part in group {
            total.ok += part.ok
            total.bytes += part.bytes
        }
        return total
    }
    let elapsed = start.duration(to: clock.now)
    tally.cpuSeconds = processCPUSeconds() - cpuStart
    return (tally, elapsed)
}

/// Prints the one result line (JSON) the runner reads, and exits 0 when every request passed.
public func report(client: String, _ options: Options, _ tally: Tally, _ elapsed: Duration, note: String? = nil) -> Never {
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    let rps = seconds > 0 ? Double(tally.ok) / seconds : 0
    var line = #"{"client":"\#(client)","scenario":"\#(options.label)","requests":\#(options.requests),"#
        + #""ok":\#(tally.ok),"bytes":\#(tally.bytes),"seconds":\#(seconds),"rps":\#(rps),"cpu":\#(tally.cpuSeconds)"#
    if let note { line += #","note":"\#(note)""# }
    print(line + "}")
    exit(tally.ok == options.requests ? 0 : 1)
}

/// Runs a client's asynchronous `body` off the main thread and blocks the main thread until it ends
/// (`body` ends the process through ``report(client:_:_:_:note:)``).
///
/// The clients do not use top-level `await`: that parks the main thread in `dispatch_main()`, whose
/// `sigsuspend` makes valgrind 3.19 (Debian 12's) crash as soon as the thread pool starts a thread,
/// and callgrind is how the per-request cost is profiled. The work never needs the main thread.
public func runBlockingMain(_ body: @escaping @Sendable () async -> Void) -> Never {
    let finished = DispatchSemaphore(value: 0)
    Task.detached {
        await body()
        finished.signal()
    }
    finished.wait()
    exit(0)
}
