import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A slow server and a fast sequence: the library asks the sequence for its next chunk only
/// while less than its bound (about 1 MB) waits to be sent, so the sequence runs at most the
/// bound plus one chunk ahead of libcurl, and memory stays flat for any size.
///
/// Memory is measured as ``StreamBackpressureTests`` does: the peak resident set size, sampled
/// every 2 ms, over the size before the upload started.
@Suite("Streamed upload backpressure", .serialized, .sharing)
struct StreamUploadBackpressureTests {
    @Test("The sequence never runs more than the bound plus one chunk ahead of what libcurl took, nor far ahead of what a slow server read",
          .measuring)
    func producerStaysWithinTheBound() async throws {
        try await withSSEServer { server in
            let chunkSize = 64 << 10
            let chunks = PatternChunks(total: 40 << 20, chunkSize: chunkSize)
            let body = RequestBody.stream(chunks, length: chunks.total)
            let upload = try #require(uploadStream(of: body))
            let bound = 1 << 20  // "about 1 MB", as for streamed responses
            #expect(upload.highWater <= bound)
            let net = makeManager()
            // The server reads 64 KB every 2 ms with a 64 KB receive buffer: about 25 MB/s at best.
            let task = Task {
                try await net.perform(StreamUploadRequest<UploadReport>(server.provider(), "/upload?delay=2&id=bounded&pattern=1",
                                                                        body: body))
            }
            var aheadOfLibcurl = 0
            var aheadOfServer = 0
            var samples = 0
            while upload.counts.produced < chunks.total {
                // The library's counts first, then the server's: the other way round, what the
                // sequence produced while the query went to the server and back would count as ahead.
                let counts = upload.counts
                let received = try await server.uploadProgress(id: "bounded").received
                aheadOfLibcurl = max(aheadOfLibcurl, Int(counts.produced - counts.handed))
                aheadOfServer = max(aheadOfServer, Int(counts.produced) - received)
                samples += 1
                try await Task.sleep(for: .milliseconds(5))
            }
            let report = try await task.value
            #expect(report.size == chunks.total)
            #expect(report.pattern)
            #expect(samples > 10, "the upload was too fast to watch")
            let statistics = upload.statistics
            #expect(statistics.peakBuffered <= bound + chunkSize,
                    "the library buffered \(statistics.peakBuffered) bytes, over its bound of \(bound) plus a chunk")
            #expect(aheadOfLibcurl <= bound + chunkSize,
                    "the sequence ran \(aheadOfLibcurl) bytes ahead of libcurl")
            // The server was slower: the buffer did fill, so the bound is what held the sequence back.
            #expect(statistics.peakBuffered >= bound / 2, "the buffer never filled (\(statistics.peakBuffered) bytes)")
            // Between libcurl and the server's reads are the sockets' buffers (this end's send
            // buffer autotunes to at most tcp_wmem's maximum) and libcurl's own 64 KB.
            let socketSlack = socketSendBufferMaximum() + (256 << 10) + (64 << 10)
            #expect(aheadOfServer <= bound + chunkSize + socketSlack,
                    "the sequence ran \(aheadOfServer >> 10) KB ahead of what the server read")
        }
    }

    @Test("256 MB generated lazily and sent to a slow server grows the process by less than 64 MB")
    func largeUploadKeepsMemoryFlat() async throws {
        try await withSSEServer { server in
            let total = 256 << 20
            // PatternChunks' bytes, from a process of its own whose peak grows only by what the upload costs.
            let probe = try await RequestProbe.send(.streamUpload("/upload?delay=0.2&pattern=1", bytes: total, chunkSize: 256 << 10),
                                                    port: server.port)
            let report = try probe.decoded(UploadReport.self)
            #expect(report.size == total)
            #expect(report.chunked)
            #expect(report.pattern, "the bytes did not arrive in order")
            #expect(probe.growth < 64 << 20, "the process grew by \(probe.growth >> 20) MB")
        }
    }
}
