import Foundation
@testable import NetworkLayer

/// Points file descriptor 2 at a pipe until ``finish()``, copying everything on to the real
/// standard error as it arrives, and returns what passed meanwhile.
// @unchecked Sendable: `captured` is behind a lock; the descriptors are set in init and only read.
final class StandardErrorCapture: @unchecked Sendable {
    private let original: Int32
    private let captured = Protected<Data>(Data())
    private let marker = "\n<end of capture \(UUID().uuidString)>\n"

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TestServerError(description: "pipe() failed: \(errno)") }
        original = dup(STDERR_FILENO)
        guard original >= 0, dup2(ends[1], STDERR_FILENO) >= 0 else {
            throw TestServerError(description: "could not redirect standard error: \(errno)")
        }
        close(ends[1])
        let readEnd = ends[0]
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                let chunk = Data(buffer[..<count])
                captured.withLock { $0.append(chunk) }
                // On to the real standard error, so that no other test's output is lost (the end
                // marker is ours: it stays out when it arrives in one piece, as it almost always does).
                var forwarded = chunk
                if let range = forwarded.range(of: Data(marker.utf8)) { forwarded.removeSubrange(range) }
                var written = 0
                while written < forwarded.count {
                    let result = forwarded[written...].withUnsafeBytes { write(original, $0.baseAddress, $0.count) }
                    if result <= 0 { break }
                    written += result
                }
            }
            // Every write end is closed (children that inherited one have exited too).
            close(readEnd)
            close(original)
        }
        thread.start()
    }

    /// Puts standard error back and returns what was written to it since `init`.
    func finish() async -> String {
        // The marker goes through the pipe after everything written before it.
        _ = marker.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        dup2(original, STDERR_FILENO)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        while clock.now < deadline {
            let text = captured.withLock { String(decoding: $0, as: UTF8.self) }
            if let end = text.range(of: marker) { return String(text[..<end.lowerBound]) }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return captured.withLock { String(decoding: $0, as: UTF8.self) }
    }
}
