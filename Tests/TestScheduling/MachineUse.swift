import Foundation
import Testing

/// How a test uses the machine: whether it measures something that other tests running at the
/// same time would disturb.
///
/// Every suite of the package's test targets carries one (a `@Suite` without one fails
/// "Every suite says how it uses the machine"):
///
/// ```swift
/// @Suite("Cookies", .sharing)                     // most suites: run alongside the others
/// @Suite("Timeout and cancellation", .measuring)  // measures latency: runs alone
/// @Test("Cancels within 100 ms", .measuring)      // or one test of a sharing suite
/// ```
///
/// A **measuring** test asserts a latency (cancelled within 100 ms, a timeout within its bound), a
/// memory bound measured in the test process, or a count only the whole process sees (every
/// request log created). It runs when no other test of the process runs: a two-core machine
/// running a hundred tests and their Python servers at once cannot measure it honestly. Sharing
/// tests run in parallel, at most ``sharingWidth`` at a time (tests of their own start servers,
/// and a hundred Python start-ups at once starve everything for seconds); the measuring ones wait
/// until no sharing test is left to start or running, then run one at a time.
///
/// Under `swift test --no-parallel` every test runs alone anyway and the lock is never contended.
/// The lock is the process's (this module is linked once into the test executable), so it spans
/// every test target. Work outside the process can be stopped while a measuring test runs too:
/// see ``PausedWhileMeasuring``.
public struct MachineUse: SuiteTrait, TestTrait, TestScoping {
    public enum Kind: Sendable, Equatable {
        /// Runs alongside the other sharing tests; steps aside while a measuring test runs.
        case sharing
        /// Measures latency, memory or process-wide counts: runs with no other test running.
        case measuring
    }

    /// Whether the test measures (runs alone) or shares the machine.
    public let kind: Kind

    /// How many sharing test cases run at once: four per core.
    public static let sharingWidth = 4 * max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Inherited by every test of a suite (and of its nested suites).
    public var isRecursive: Bool { true }

    /// The trait that takes the lock for one test case, or `nil` for a suite and for a trait
    /// another one of the test's overrides.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> MachineUse? {
        // Once per test case (never around a whole suite, which would hold the lock while its
        // tests wait), and only from the trait that decides: a measuring one wherever it was
        // given (suite or test) wins over a sharing one.
        guard testCase != nil else { return nil }
        let measures = kind == .measuring || test.traits.contains { ($0 as? MachineUse)?.kind == .measuring }
        return kind == (measures ? .measuring : .sharing) ? self : nil
    }

    /// Runs the test case once the machine can be had as `kind` says, and gives it back after.
    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // A test of a suite inside a suite gets both suites' traits: the outer one holds the lock.
        if MachineLock.heldByThisTask {
            try await function()
            return
        }
        await MachineLock.shared.acquire(kind)
        if kind == .measuring { PausedWhileMeasuring.pause() }
        do {
            try await MachineLock.$heldByThisTask.withValue(true) { try await function() }
        } catch {
            if kind == .measuring { PausedWhileMeasuring.resume() }
            MachineLock.shared.release(kind)
            throw error
        }
        if kind == .measuring { PausedWhileMeasuring.resume() }
        MachineLock.shared.release(kind)
    }
}

extension Trait where Self == MachineUse {
    /// The test measures latency, memory or a process-wide count: it runs with no other test
    /// running. See ``MachineUse``.
    public static var measuring: Self { MachineUse(kind: .measuring) }

    /// The test measures nothing other tests could disturb: it runs alongside them, and steps
    /// aside while a measuring test runs. See ``MachineUse``.
    public static var sharing: Self { MachineUse(kind: .sharing) }
}

/// The process's lock behind ``MachineUse``: many sharing holders (up to a width) or one
/// measuring holder. Sharing waiters go first; measuring waiters get the machine, one at a
/// time, once no sharing test is waiting or running. Waiting suspends the task (never a thread
/// of the cooperative pool, which has two threads here).
final class MachineLock: @unchecked Sendable {
    // @unchecked Sendable: every stored property is read and written only while `lock` is held.
    static let shared = MachineLock(width: MachineUse.sharingWidth)

    @TaskLocal static var heldByThisTask = false

    private let lock = NSLock()
    private let width: Int
    private var sharingRunning = 0
    private var measuringRunning = false
    private var sharingWaiters: [CheckedContinuation<Void, Never>] = []
    private var measuringWaiters: [CheckedContinuation<Void, Never>] = []
    private var sharingNext = 0     // the first sharing waiter not yet resumed (FIFO without shifting)
    private var measuringNext = 0

    init(width: Int) {
        self.width = max(1, width)
    }

    func acquire(_ kind: MachineUse.Kind) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            switch kind {
            case .sharing: sharingWaiters.append(continuation)
            case .measuring: measuringWaiters.append(continuation)
            }
            let granted = grant()
            lock.unlock()
            for waiter in granted { waiter.resume() }
        }
    }

    func release(_ kind: MachineUse.Kind) {
        lock.lock()
        switch kind {
        case .sharing: sharingRunning -= 1
        case .measuring: measuringRunning = false
        }
        let granted = grant()
        lock.unlock()
        for waiter in granted { waiter.resume() }
    }

    /// The waiters that may run now (called with `lock` held; resumed after it is released).
    private func grant() -> [CheckedContinuation<Void, Never>] {
        var granted: [CheckedContinuation<Void, Never>] = []
        guard !measuringRunning else { return granted }
        while sharingNext < sharingWaiters.count, sharingRunning < width {
            granted.append(sharingWaiters[sharingNext])
            sharingNext += 1
            sharingRunning += 1
        }
        if sharingNext == sharingWaiters.count {
            sharingWaiters.removeAll()
            sharingNext = 0
        }
        if sharingRunning == 0, sharingWaiters.isEmpty, measuringNext < measuringWaiters.count {
            granted.append(measuringWaiters[measuringNext])
            measuringNext += 1
            measuringRunning = true
            if measuringNext == measuringWaiters.count {
                measuringWaiters.removeAll()
                measuringNext = 0
            }
        }
        return granted
    }
}

/// Work outside the test process that a measuring test stops while it runs: the sessions named in
/// `NETWORKLAYER_PAUSE_WHILE_MEASURING` (comma-separated session leaders, each started with
/// `setsid`), whose every process gets SIGSTOP when a measuring test starts and SIGCONT when it
/// ends. CI sets it to the builds it runs in the background at low priority during a test run
/// (`.ci/run`), so that what a measuring test measures is the library, not a compiler beside it.
/// Unset, nothing is paused.
///
/// By session, not by process group: SwiftPM starts each compiler in a process group of its own,
/// and one forked just as its parent's group was stopped leaves that group stopped. A signal to
/// every process of the session reaches it wherever it went.
enum PausedWhileMeasuring {
    static let sessions: [pid_t] = (ProcessInfo.processInfo.environment["NETWORKLAYER_PAUSE_WHILE_MEASURING"] ?? "")
        .split(separator: ",")
        .compactMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
        .filter { $0 > 1 }

    static func pause() {
        send(SIGSTOP, toSessions: sessions)
    }

    static func resume() {
        send(SIGCONT, toSessions: sessions)
    }

    /// `signal` to every process of `sessions`, whatever process group it is in.
    static func send(_ signal: Int32, toSessions sessions: [pid_t]) {
        guard !sessions.isEmpty else { return }
        for group in sessions { _ = kill(-group, signal) }
        for process in processes(inSessions: Set(sessions)) { _ = kill(process, signal) }
    }

    /// The processes whose session is one of `sessions`, read from `/proc/<pid>/stat`.
    static func processes(inSessions sessions: Set<pid_t>) -> [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name -> pid_t? in
            guard let process = pid_t(name), let session = session(of: process), sessions.contains(session) else { return nil }
            return process
        }
    }

    /// The session of `process`.
    static func session(of process: pid_t) -> pid_t? {
        statFields(of: process).flatMap { $0.count > 3 ? pid_t($0[3]) : nil }
    }

    /// The fields of `/proc/<pid>/stat` after the command name (which ends at the last `)`): the
    /// state, the parent, the process group, the session, …
    static func statFields(of process: pid_t) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: end)...].split(separator: " ")
    }
}
