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

    /// The probe: its stream's timeout bounds each silence, so one still running after 5 minutes hangs.
    static let probe = ProbeProcess(name: "StreamMemoryProbe", deadline: .seconds(300))

    /// Streams `bytes` bytes from the SSE server's `/bytes` on `port` in a new process.
    static func measure(port: Int, bytes: Int) async throws -> Measurement {
        try await probe.run([String(port), String(bytes)])
    }
}
