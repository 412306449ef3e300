import Foundation

/// The `StreamMemoryProbe` executable (Tests/StreamMemoryProbe), built beside this test binary:
/// one streamed download in a process of its own, so its peak resident size is a whole process's
/// (runtime, Foundation, libcurl and OpenSSL included), not growth within the test process.
enum StreamMemoryProbe {
    /// What the probe reports.
    struct Measurement: Decodable, Sendable {
        /// Bytes received.
        let bytes: Int
        /// Whether every chunk continued the server's byte pattern.
        let inOrder: Bool
        /// The process's peak resident size (VmHWM), in bytes.
        let peak: Int
    }

    struct ProbeFailure: Error, CustomStringConvertible {
        let status: Int32
        let output: String
        var description: String { "StreamMemoryProbe exited with \(status): \(output)" }
    }

    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("StreamMemoryProbe")
    }

    /// Streams `bytes` bytes from the SSE server's `/bytes` on `port` in a new process. Blocks:
    /// call it off the cooperative pool.
    static func measure(port: Int, bytes: Int) throws -> Measurement {
        let process = Process()
        process.executableURL = executable
        process.arguments = [String(port), String(bytes)]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let measurement = try? JSONDecoder().decode(Measurement.self, from: data) else {
            throw ProbeFailure(status: process.terminationStatus,
                               output: String(decoding: data + message, as: UTF8.self))
        }
        return measurement
    }
}
