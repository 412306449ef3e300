import Foundation

extension Pipe {
    /// Marks the ends the test process keeps (the write end of a child's stdin, the read end of
    /// its stdout) close-on-exec, so that other programs the tests start do not inherit them and
    /// keep a stopped server's stdin open (or hold a lock `make test` runs under).
    static func forChild() -> (stdin: Pipe, stdout: Pipe) {
        let stdin = Pipe()
        let stdout = Pipe()
        _ = fcntl(stdin.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(stdout.fileHandleForReading.fileDescriptor, F_SETFD, FD_CLOEXEC)
        return (stdin, stdout)
    }

    /// The first line a child printed, trimmed; empty when it exited before printing one.
    /// Blocks until the line or end of file arrives.
    func readFirstLine() -> String {
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
