import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The engine drives libcurl through its multi-socket API: the system (epoll, or poll() in the build
/// `make test-poll` runs) says which sockets are ready, and libcurl's one timer says when a transfer
/// must run without one (just added, resumed, timed out).
/// A timer handled wrongly shows in two ways: a transfer that never runs (it hangs), or an engine
/// that never sleeps (it spins at 100 % of a core with nothing to do).
@Suite("The engine's event loop", .sharing)
struct EngineEventLoopTests {
    @Test("With nothing to do, the engine sleeps: after requests, a timeout and a cancel, and beside a silent stream", .measuring)
    func idleEngineSleeps() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        let provider = server.provider()
        try await withFaultServer { faults in
            // Requests with timeouts (libcurl sets its timer for each), one that times out (the timer
            // fires), one cancelled while running.
            for index in 0..<20 {
                let echo = try await net.perform(TestRequest<Echo>(provider, "/echo/\(index)", timeout: TestTimeout.seconds(10)))
                #expect(echo.path == "/echo/\(index)")
            }
            #expect(await networkError { try await net.perform(TestRequest<Data>(faults.provider(), "/stall-after-headers", timeout: 0.3)) } != nil)
            let cancelled = Task { try await net.perform(TestRequest<Data>(faults.provider(), "/stall-after-headers")) }
            try await Task.sleep(for: .milliseconds(200))
            cancelled.cancel()
            _ = await cancelled.result
            // A stream whose server went silent after the head: a live transfer with nothing to read.
            let silent = try await net.perform(StreamRequest<ByteStream>(faults.provider(), "/stall-after-headers", timeout: TestTimeout.seconds(30)))
            // A connection back in libcurl's cache (a new one: the stream holds the other) whose
            // server closes it 100 ms later, before the engine is watched and while nothing takes
            // it: its socket is parked (epoll keeps it in the set, disarmed by its one event;
            // poll() drops it), and its end of file must not wake the engine.
            let closing = try await net.perform(TestRequest<FaultOK>(faults.provider(), "/ok-then-close"))
            #expect(closing.ok)
            try await Task.sleep(for: .milliseconds(300))
            let engine = try #require(EngineThread.find(), "no thread named \(CurlEngine.threadName)")
            let before = try #require(engine.cpuTime())
            let start = ContinuousClock.now
            try await Task.sleep(for: .seconds(1))
            let elapsed = ContinuousClock.now - start
            let used = try #require(engine.cpuTime()) - before
            // A sleeping engine wakes about once a second (the stream's deadline); one that spins
            // uses the whole second. The kernel counts in 10 ms ticks.
            #expect(used < elapsed / 5, "the engine thread used \(used) of CPU in \(elapsed) with nothing to do")
            _ = silent
            // The closed connection is found dead when it is next taken, and the request gets a new
            // socket, often under the closed one's number: the loop must add it to the set afresh.
            #expect(try await net.perform(TestRequest<FaultOK>(faults.provider(), "/ok")).ok)
        }
    }

    @Test("The event loop is the one the build asked for: epoll on Linux, poll() when NETWORKLAYER_EVENT_LOOP says poll")
    func eventLoopIsTheOneAskedFor() {
        // scripts/test-poll.sh sets the variable for its build: were the define lost on the way,
        // its run would test the epoll loop twice and pass.
        #if os(Linux)
        let standard = "epoll"
        #else
        let standard = "poll"
        #endif
        let asked = ProcessInfo.processInfo.environment["NETWORKLAYER_EVENT_LOOP"] ?? standard
        #expect(CurlEngine.eventLoopKind == asked)
    }

    @Test("A hundred transfers at once, on new and then on reused connections, all finish with their own answers")
    func manyTransfersAtOnce() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        let provider = server.provider()
        for round in 0..<2 {
            let paths = try await withThrowingTaskGroup(of: (String, String).self) { group in
                for index in 0..<100 {
                    let path = "/echo/round\(round)-\(index)"
                    group.addTask { (path, try await net.perform(TestRequest<Echo>(provider, path)).path) }
                }
                return try await group.reduce(into: [(String, String)]()) { $0.append($1) }
            }
            #expect(paths.count == 100)
            for (sent, answered) in paths { #expect(sent == answered) }
        }
    }
}

/// The engine's thread, found by its name in /proc.
private struct EngineThread {
    let statPath: String

    static func find() -> EngineThread? {
        let tasks = "/proc/self/task"
        guard let ids = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return nil }
        for id in ids {
            let name = (try? String(contentsOfFile: "\(tasks)/\(id)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            if name == CurlEngine.threadName { return EngineThread(statPath: "\(tasks)/\(id)/stat") }
        }
        return nil
    }

    /// User and system time the thread used so far.
    func cpuTime() -> Duration? {
        guard let stat = try? String(contentsOfFile: statPath, encoding: .utf8),
              let afterName = stat.range(of: ") ", options: .backwards) else { return nil }
        // Fields after the name start at the third (state); utime and stime are the 14th and 15th.
        let fields = stat[afterName.upperBound...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        let ticksPerSecond = Int(sysconf(Int32(_SC_CLK_TCK)))
        return .milliseconds((user + system) * 1000 / max(ticksPerSecond, 1))
    }
}
