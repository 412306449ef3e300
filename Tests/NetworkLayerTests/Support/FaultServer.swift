import Foundation
import Synchronization
import Testing
@testable import NetworkLayer

// Support for the reliability suites (Tests/NetworkLayerTests/Reliability/): the fault server,
// servers shared by a suite, timing on an executor of their own with the machine's delays
// accounted for, and peak memory. Names are chosen not to collide with other suites' helpers.

/// A misbehaving server on 127.0.0.1: `Tests/Servers/fault_server.py`, on a port the kernel picks.
///
/// Like ``TestServer`` it exits when its stdin closes, so it cannot outlive the test process.
final class FaultServer: Sendable {
    /// What the server does with a connection (see the script's docstring).
    enum Mode: String, Sendable {
        /// Reads each request and misbehaves as its path says.
        case serve
        /// Bound, never listening: every connect is refused.
        case refuse
        /// A full accept queue: a connect is never answered, so it times out.
        case backlog
        /// Accepts TCP and reads the ClientHello, never answers it.
        case stallTLS = "stall-tls"
    }

    let mode: Mode
    private let server: ServerProcess

    /// The userinfo `/redirect-userinfo/<path>` puts in its `Location` (see fault_server.py).
    static let canaryUser = "nlcanaryuser"
    static let canaryPassword = "nlcanarypass4f1c"

    /// Starts the server and waits for its `PORT` line. Blocks: call it off the cooperative pool.
    static func start(_ mode: Mode = .serve) throws -> FaultServer {
        // -S: no site packages to import; the server needs only the standard library, and a
        // suite may start several of these at once on a two-core machine.
        let server = try ServerProcess(python: ["-S", testsDirectory.appendingPathComponent("Servers/fault_server.py").path,
                                                "--mode", mode.rawValue],
                                       name: "fault_server.py --mode \(mode.rawValue)")
        return FaultServer(server: server, mode: mode)
    }

    private init(server: ServerProcess, mode: Mode) {
        self.server = server
        self.mode = mode
    }

    var port: Int { server.port }

    /// Stops the server and waits for it to exit. Blocks: call it off the cooperative pool.
    func stop() { server.stop() }

    /// A provider pointing at this server.
    func provider(scheme: HTTPScheme = .http, host: String = "127.0.0.1", headers: [String: String] = [:],
                  authentication: Authentication? = nil) -> FaultProvider {
        FaultProvider(host: host, httpScheme: scheme, port: port, headers: headers, authentication: authentication)
    }

    /// Connections and requests the server has seen (serve mode), asked on a manager of its own.
    func stats() async throws -> FaultStats {
        let net = NetworkManager()
        net.isVerbose = false
        return try await net.perform(TestRequest<FaultStats>(provider(), "/stats", timeout: 5))
    }
}

/// What `/stats` answers: connections accepted and requests read, not counting the `/stats` call.
struct FaultStats: Decodable, Sendable, Equatable {
    let connections: Int
    let requests: Int
}

/// What `/ok` answers.
struct FaultOK: Decodable, Sendable {
    let ok: Bool
}

/// A loopback provider with fixed headers and, optionally, authentication.
struct FaultProvider: ServiceProvider {
    var host: String
    var httpScheme: HTTPScheme
    var port: Int?
    var headers: [String: String] = [:]
    var authentication: Authentication?

    func createHTTPHeaders() -> [String: String] { headers }
}

/// Servers a whole suite shares: started before its first test, stopped after its last.
///
/// `@Suite(.sharedServers(faultModes: [.serve, .backlog]))`; a test then asks for
/// `try SharedServers.fault(.serve)`. For the suites whose tests measure time: one Python start-up
/// per suite instead of one per test case keeps the two cores for what is measured. Tests that
/// count what a server receives start their own instead.
struct SharedServers: SuiteTrait, TestScoping {
    let faultModes: [FaultServer.Mode]
    /// Also a `test_server.py` with the good `localhost` certificate (trusted by `makeTLSManager()`).
    let legitimateTLS: Bool

    struct Running: Sendable {
        var fault: [FaultServer.Mode: FaultServer] = [:]
        var legitimateTLS: TestServer?
    }

    @TaskLocal static var running: Running?

    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let (faultModes, legitimateTLS) = (self.faultModes, self.legitimateTLS)
        let servers = try await offCooperativePool { () throws -> Running in
            var running = Running()
            for mode in faultModes { running.fault[mode] = try FaultServer.start(mode) }
            if legitimateTLS {
                running.legitimateTLS = try TestServer.startTLS(certificate: "localhost-chain.pem", key: "localhost.key")
            }
            return running
        }
        let stopAll: @Sendable () -> Void = {
            for server in servers.fault.values { server.stop() }
            servers.legitimateTLS?.stop()
        }
        do {
            try await Self.$running.withValue(servers) { try await function() }
        } catch {
            await offCooperativePool(stopAll)
            throw error
        }
        await offCooperativePool(stopAll)
    }

    /// The suite's fault server in `mode`.
    static func fault(_ mode: FaultServer.Mode = .serve) throws -> FaultServer {
        guard let server = running?.fault[mode] else {
            throw TestServerError(description: "no shared fault server in mode \(mode.rawValue): add it to the suite's .sharedServers trait")
        }
        return server
    }

    /// The suite's TLS server with a good certificate.
    static func legitimateTLS() throws -> TestServer {
        guard let server = running?.legitimateTLS else {
            throw TestServerError(description: "no shared TLS server: add legitimateTLS: true to the suite's .sharedServers trait")
        }
        return server
    }
}

extension Trait where Self == SharedServers {
    /// Servers shared by every test of the suite, started once and stopped at its end.
    static func sharedServers(faultModes: [FaultServer.Mode] = [], legitimateTLS: Bool = false) -> Self {
        SharedServers(faultModes: faultModes, legitimateTLS: legitimateTLS)
    }
}

/// Runs `body` with a fresh fault server in `mode`, stopped afterwards whatever happens. The
/// server starts and stops on a Dispatch thread: both block, and the cooperative pool has only
/// one thread per core.
func withFaultServer<T>(_ mode: FaultServer.Mode = .serve, _ body: (FaultServer) async throws -> T) async throws -> T {
    let server = try await offCooperativePool { try FaultServer.start(mode) }
    do {
        let value = try await body(server)
        await offCooperativePool { server.stop() }
        return value
    } catch {
        await offCooperativePool { server.stop() }
        throw error
    }
}

extension TestServer {
    /// Runs `body` with this server, then stops it (on a Dispatch thread: stopping blocks).
    func whileRunning<T>(_ body: (TestServer) async throws -> T) async throws -> T {
        do {
            let value = try await body(self)
            await offCooperativePool { self.stop() }
            return value
        } catch {
            await offCooperativePool { self.stop() }
            throw error
        }
    }
}


// MARK: - Timing

/// An executor with a thread of its own, for the tasks whose latency is measured: they resume
/// there, not on the cooperative pool nor on Dispatch's, which parallel suites keep busy (and
/// block, waiting for processes): the measurement would be of the other tests, not of the library.
final class ReliabilityExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` is behind a lock; the semaphore and thread are thread-safe.
    static let shared = ReliabilityExecutor()

    private let jobs = Protected<[UnownedJob]>([])
    private let available = DispatchSemaphore(value: 0)
    /// The executor thread's id, for its scheduler statistics.
    let threadID = Protected<Int32?>(nil)

    private init() {
        let thread = Thread { [self] in
            threadID.withLock { $0 = currentThreadID() }
            while true {
                available.wait()
                guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
        thread.name = "NetworkLayerTests.ReliabilityExecutor"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        available.signal()
    }
}

/// Runs `body` in a task on the ``ReliabilityExecutor`` and returns its value with how long it took.
func timedOnOwnExecutor<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> (value: T, elapsed: Duration) {
    await Task(executorPreference: ReliabilityExecutor.shared) {
        let clock = ContinuousClock()
        let start = clock.now
        let value = await body()
        return (value, start.duration(to: clock.now))
    }.value
}

/// The id of the calling thread (from /proc/thread-self), or `nil`.
func currentThreadID() -> Int32? {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))
        .flatMap { Int32($0.split(separator: "/").last ?? "") }
}

/// The id of the library's libcurl thread, once a progress callback (which runs there) told it.
private let engineThreadID = Protected<Int32?>(nil)

/// Learns the id of the library's libcurl thread, with one request to `provider`'s `/ok`.
func learnEngineThread(via provider: some ServiceProvider) async {
    guard engineThreadID.withLock({ $0 }) == nil else { return }
    let probe = TestRequest<FaultOK>(provider, "/ok", timeout: 5)
    probe.onProgress = { _ in engineThreadID.withLock { $0 = $0 ?? currentThreadID() } }
    let net = NetworkManager()
    net.isVerbose = false
    _ = try? await net.perform(probe)
}

/// How long a thread has been runnable but waiting for a core (field 2 of
/// /proc/self/task/<tid>/schedstat), in nanoseconds.
private func coreWait(of thread: Int32?) -> Int {
    guard let thread, let stat = try? String(contentsOfFile: "/proc/self/task/\(thread)/schedstat", encoding: .utf8) else { return 0 }
    let fields = stat.split(separator: " ")
    return fields.count >= 2 ? Int(fields[1]) ?? 0 : 0
}

/// Runs `body` and returns its value with how long the library's libcurl thread and the
/// measuring executor's thread waited for a core meanwhile: runnable, but the machine ran
/// something else.
///
/// The timing tests allow this much on top of their bounds. On this two-core machine, with the
/// whole suite and its Python servers running in parallel, the libcurl thread (busy with every
/// test's transfers) was measured waiting a full second for a core within a 1.7 s request: that
/// is the machine, not the library. A delay of the library's own making (its thread busy with
/// other work, a lost wake-up, a timer set wrong) is not waiting for a core, so it still fails
/// the test. Call ``learnEngineThread(via:)`` first, or nothing is allowed for the libcurl thread.
func withCoreWaits<T: Sendable>(_ body: () async -> T) async -> (value: T, waited: Duration) {
    let threads = [engineThreadID.withLock { $0 }, ReliabilityExecutor.shared.threadID.withLock { $0 }]
    let before = threads.map(coreWait(of:))
    let value = await body()
    let after = threads.map(coreWait(of:))
    return (value, .nanoseconds(zip(after, before).map { $0 - $1 }.reduce(0, +)))
}

/// The outcome of a request as a value: the error, or that it succeeded (and with what).
enum FaultOutcome<Value: Sendable>: Sendable {
    case success(Value)
    case failure(NetworkError)

    init(_ body: () async throws(NetworkError) -> Value) async {
        do throws(NetworkError) {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }

    var error: NetworkError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension NetworkError {
    /// The case's name, so that a failed expectation prints which case came instead.
    var faultCaseName: String {
        switch self {
        case .generic: "generic"
        case .reachability: "reachability"
        case .timeOut: "timeOut"
        case .invalidCertificate: "invalidCertificate"
        case .serialization: "serialization"
        case .notFound: "notFound"
        case .unauthorizedAccess: "unauthorizedAccess"
        case .customUser: "customUser"
        case .cancelled: "cancelled"
        case .mockNotFound: "mockNotFound"
        case .invalidRequest: "invalidRequest"
        case .transport: "transport"
        case .apiError: "apiError"
        case .validation: "validation"
        }
    }

    /// libcurl's code, when the underlying error is a ``CurlError``.
    var faultCurlCode: Int? { (underlyingError as? CurlError)?.code }
}

// MARK: - Memory

/// The resident set size of this process (`VmRSS` in /proc/self/status), in bytes.
func residentSetSize() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    else { return 0 }
    return kilobytes * 1024
}

/// Samples the resident set size every 2 ms on a thread of its own while `body` runs, and
/// returns `body`'s value with the growth of the peak over the size before it started.
///
/// A peak, not a before/after difference: a 50 MB body that is allocated and freed during the
/// request would not show in the size afterwards.
func peakMemoryGrowth<T: Sendable>(during body: () async throws -> T) async rethrows -> (value: T, growth: Int) {
    let sampler = MemorySampler()
    let value: T
    do {
        value = try await body()
    } catch {
        _ = await sampler.stop()
        throw error
    }
    return (value, await sampler.stop())
}

/// The thread behind ``peakMemoryGrowth(during:)``.
private final class MemorySampler: Sendable {
    private let baseline = residentSetSize()
    private let peak = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)

    init() {
        peak.store(baseline, ordering: .relaxed)
        let thread = Thread { [self] in
            while running.load(ordering: .acquiring) {
                let current = residentSetSize()
                if current > peak.load(ordering: .relaxed) { peak.store(current, ordering: .relaxed) }
                usleep(2000)
            }
            finished.signal()
        }
        thread.start()
    }

    /// Stops sampling; returns the peak's growth over the baseline, in bytes.
    func stop() async -> Int {
        running.store(false, ordering: .releasing)
        await offCooperativePool { [finished] in finished.wait() }
        return max(peak.load(ordering: .relaxed), residentSetSize()) - baseline
    }
}
