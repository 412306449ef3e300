import Foundation

struct TestServerError: Error, CustomStringConvertible {
    let description: String
}

/// A loopback server program started by a test: launched with a pipe as its stdin, waited for
/// until it prints `PORT <n>`, stopped by closing that pipe (the servers exit when their stdin
/// closes, so none outlives the test process, even after a crash; the test process's ends of the
/// pipes are close-on-exec, so no other child holds that stdin open).
// @unchecked Sendable: immutable after init; `Process.terminate` and `FileHandle.close` may be
// called from any thread.
final class ServerProcess: @unchecked Sendable {
    let port: Int
    private let process: Process
    private let stdinPipe: Pipe

    /// Runs `python3 <arguments>` (or another `interpreter`, such as the `.venv`'s Python) and
    /// waits for its port. Blocks: call it off the cooperative pool.
    init(python arguments: [String], name: String, interpreter: String = "python3") throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [interpreter] + arguments
        let (stdinPipe, stdoutPipe) = Pipe.forChild()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line is "PORT <n>"; EOF first means the server failed to start.
        let text = stdoutPipe.readFirstLine()
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw TestServerError(description: "\(name) did not start (printed \"\(text)\")")
        }
        self.port = port
        self.process = process
        self.stdinPipe = stdinPipe
    }

    /// Stops the server and waits for it to exit. Blocks: call it off the cooperative pool.
    func stop() {
        try? stdinPipe.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
