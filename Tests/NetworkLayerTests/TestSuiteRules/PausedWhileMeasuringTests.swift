import Foundation
import Testing
@testable import TestScheduling

/// CI stops the builds it runs beside the tests while a measuring test runs, and continues them
/// after (``PausedWhileMeasuring``). A compiler SwiftPM started in a process group of its own must
/// be stopped and continued too: one left stopped hung a CI run.
@Suite("Background work pauses by session", .sharing)
struct PausedWhileMeasuringTests {
    @Test("A process of the session in a process group of its own is stopped, then continued")
    func aProcessInAGroupOfItsOwn() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("paused-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pidFile = directory.appendingPathComponent("child.pid")
        let leader = Process()
        leader.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        // `set -m`: bash starts the background job in a process group of its own, as SwiftPM does its compilers.
        leader.arguments = ["bash", "-c", "set -m; sleep 60 & echo $! > '\(pidFile.path)'; wait"]
        try leader.run()
        var child: pid_t?
        for _ in 0..<100 where child == nil {
            child = (try? String(contentsOf: pidFile, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if child == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let sleeper = try #require(child, "the session's background job never started")
        let session = try #require(PausedWhileMeasuring.session(of: sleeper))
        defer {
            kill(sleeper, SIGKILL)
            kill(-session, SIGKILL)
            leader.waitUntilExit()
        }
        #expect(Self.stat(of: sleeper)?.group != session, "the job shares the session leader's group: the test proves nothing")

        PausedWhileMeasuring.send(SIGSTOP, toSessions: [session])
        #expect(await Self.state(of: sleeper, becomes: "T"), "the job in a group of its own was not stopped")
        PausedWhileMeasuring.send(SIGCONT, toSessions: [session])
        #expect(await Self.state(of: sleeper, becomes: "S"), "the job was not continued")
    }

    /// The state letter and process group of `process`.
    static func stat(of process: pid_t) -> (state: String, group: pid_t)? {
        guard let fields = PausedWhileMeasuring.statFields(of: process), fields.count > 2, let group = pid_t(fields[2]) else { return nil }
        return (String(fields[0]), group)
    }

    /// Whether `process` reaches `state` within 5 s.
    static func state(of process: pid_t, becomes state: String) async -> Bool {
        for _ in 0..<100 {
            if stat(of: process)?.state == state { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
