import Foundation

/// A server program that is not one of ours (tinyproxy, mitmdump): started on a port chosen for
/// it, waited for until the port accepts connections, and stopped by ``stop()``.
///
/// A `sh` wrapper starts it, prints its process id, and kills it once the wrapper's stdin reaches
/// EOF, so it does not outlive a crashed test process (the write end of that pipe is
/// close-on-exec, so other programs the tests start do not inherit it and hold it open).
/// ``stop()`` does not wait for that: it kills the program and the wrapper with SIGKILL, the one
/// signal that works here (a program started by `Process` from a Dispatch thread inherits that
/// thread's signal mask, in which SIGTERM is blocked).
// @unchecked Sendable: immutable after init; `Process` and `FileHandle` may be used from any thread.
final class DaemonProcess: @unchecked Sendable {
    let port: Int
    private let process: Process
    private let stdinPipe: Pipe
    private let child: pid_t

    /// Runs `command` (which must listen on 127.0.0.1:`port`) and waits up to `startTimeout`
    /// for the port. Blocks: call it off the cooperative pool.
    init(_ command: [String], port: Int, name: String, startTimeout: TimeInterval = 30) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", #""$@" & child=$!; echo "$child"; while read -r _; do :; done; kill -9 "$child" 2>/dev/null; wait "$child""#, "sh"]
            + command
        let (stdinPipe, stdoutPipe) = Pipe.forChild()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = stdoutPipe.readFirstLine()
        try? stdoutPipe.fileHandleForReading.close()
        guard let child = pid_t(line), child > 0 else {
            try? stdinPipe.fileHandleForWriting.close()
            process.terminate()
            throw TestServerError(description: "\(name) did not start")
        }
        self.port = port
        self.process = process
        self.stdinPipe = stdinPipe
        self.child = child
        let deadline = Date().addingTimeInterval(startTimeout)
        while !Self.accepts(port: port) {
            guard Date() < deadline, process.isRunning else {
                stop()
                throw TestServerError(description: "\(name) did not listen on port \(port) within \(startTimeout) s")
            }
            usleep(50_000)
        }
    }

    /// Stops the program and waits for its wrapper to exit. Blocks: call it off the cooperative pool.
    func stop() {
        try? stdinPipe.fileHandleForWriting.close()
        kill(child, SIGKILL)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(clamping: port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
