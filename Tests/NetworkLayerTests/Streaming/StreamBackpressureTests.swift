import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A fast server and a slow reader: the library buffers about 1 MB, pauses the transfer in
/// libcurl beyond that, and resumes it as the reader catches up, so memory stays flat.
///
/// Memory is measured in a process of its own (``StreamMemoryProbe``): its whole peak resident
/// size, which no other test running in parallel inflates.
@Suite("Stream backpressure", .serialized, .sharing)
struct StreamBackpressureTests {
    static let gigabyte = 1 << 30

    @Test("1 GB streamed from loopback to a reader that sleeps on every chunk pauses the transfer, and every byte arrives in order")
    func gigabyteToSlowReader() async throws {
        try await withSSEServer { server in
            // The memory this costs is measured by gigabyteInAProcessOfItsOwn: in this process other
            // tests' allocations would count too.
            let stream = try await makeManager().perform(StreamRequest<ByteStream>(server.provider(),
                                                                                 "/bytes?size=\(Self.gigabyte)&chunk=1048576", timeout: 30))
            var total = 0
            var inOrder = true
            for try await chunk in stream {
                // Spot-check the pattern (byte i is i % 256) at each chunk's first and last byte.
                if let first = chunk.first, first != UInt8(truncatingIfNeeded: total) { inOrder = false }
                if let last = chunk.last, last != UInt8(truncatingIfNeeded: total + chunk.count - 1) { inOrder = false }
                total += chunk.count
                try await Task.sleep(for: .microseconds(20))  // a reader slower than loopback
            }
            let pauses = stream.body.buffer.pauseCount
            #expect(total == Self.gigabyte)
            #expect(inOrder)
            #expect(pauses > 0, "the transfer was never paused: the reader was not slower")
        }
    }

    @Test("A reader that starts long after the head, its first megabyte already buffered and the transfer paused, is not timed out for silence")
    func pausedBeforeTheReaderStarts() async throws {
        try await withSSEServer { server in
            // On loopback the head and the first megabyte often come in one round: the transfer
            // pauses before the head is handed over. Eight streams, so that some do. Waiting for
            // the reader is not the server's silence.
            let size = 2 << 20
            let net = makeManager()
            let streams = try await withThrowingTaskGroup(of: ByteStream.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await net.perform(StreamRequest<ByteStream>(server.provider(), "/bytes?size=\(size)&chunk=262144", timeout: 0.5))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            try await Task.sleep(for: .seconds(2))
            for stream in streams {
                var received = 0
                for try await chunk in stream { received += chunk.count }
                #expect(received == size)
            }
        }
    }

    @Test("1 GB streamed to a reader that sleeps on every chunk, in a process of its own: its peak resident size stays under 64 MB")
    func gigabyteInAProcessOfItsOwn() async throws {
        try await withSSEServer { server in
            let port = server.port
            let measurement = try await StreamMemoryProbe.measure(port: port, bytes: Self.gigabyte)
            #expect(measurement.bytes == Self.gigabyte)
            #expect(measurement.inOrder)
            #expect(measurement.peak < 64 << 20, "the process's peak resident size was \(measurement.peak >> 20) MB")
            // A floor, so that a probe that measured nothing cannot pass: the runtime alone is several MB.
            #expect(measurement.peak > 4 << 20, "implausible peak \(measurement.peak) bytes")
        }
    }
}
