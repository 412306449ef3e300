import Foundation
import Testing
@testable import NetworkLayer

/// A fast server and a slow reader: the library buffers about 1 MB, pauses the transfer in
/// libcurl beyond that, and resumes it as the reader catches up, so memory stays flat.
///
/// Memory is measured as ``MemoryBoundTests`` does: the peak resident set size, sampled every
/// 2 ms, over the size before the stream started.
@Suite("Stream backpressure", .serialized)
struct StreamBackpressureTests {
    static let gigabyte = 1 << 30

    @Test("1 GB streamed from loopback to a reader that sleeps on every chunk grows the process by less than 64 MB")
    func gigabyteToSlowReader() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            let provider = server.provider()
            let ((total, pauses, inOrder), growth) = try await peakMemoryGrowth {
                let stream = try await net.perform(StreamRequest<ByteStream>(provider, "/bytes?size=\(Self.gigabyte)&chunk=1048576",
                                                                             timeout: 30))
                var total = 0
                var inOrder = true
                for try await chunk in stream {
                    // Spot-check the pattern (byte i is i % 256) at each chunk's first and last byte.
                    if let first = chunk.first, first != UInt8(truncatingIfNeeded: total) { inOrder = false }
                    if let last = chunk.last, last != UInt8(truncatingIfNeeded: total + chunk.count - 1) { inOrder = false }
                    total += chunk.count
                    try await Task.sleep(for: .microseconds(20))  // a reader slower than loopback
                }
                return (total, stream.body.buffer.pauseCount, inOrder)
            }
            #expect(total == Self.gigabyte)
            #expect(inOrder)
            #expect(pauses > 0, "the transfer was never paused: the reader was not slower")
            #expect(growth < 64 << 20, "the process grew by \(growth >> 20) MB")
        }
    }

    @Test("1 GB streamed to a reader that sleeps on every chunk, in a process of its own: its peak resident size stays under 64 MB")
    func gigabyteInAProcessOfItsOwn() async throws {
        try await withSSEServer { server in
            let port = server.port
            let measurement = try await offCooperativePool { try StreamMemoryProbe.measure(port: port, bytes: Self.gigabyte) }
            #expect(measurement.bytes == Self.gigabyte)
            #expect(measurement.inOrder)
            #expect(measurement.peak < 64 << 20, "the process's peak resident size was \(measurement.peak >> 20) MB")
            // A floor, so that a probe that measured nothing cannot pass: the runtime alone is several MB.
            #expect(measurement.peak > 4 << 20, "implausible peak \(measurement.peak) bytes")
        }
    }
}
