import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Over HTTP/2 (hypercorn, TLS) a streamed body goes in DATA frames, without chunked encoding,
/// and the transfer's pauses for want of bytes and its resumptions work as on HTTP/1.1.
@Suite("Streamed upload bodies over HTTP/2", .sharing)
struct StreamUploadHTTP2Tests {
    @Test("A body of unknown length, produced slower than it is sent, arrives whole over HTTP/2 in plain DATA frames", .measuring)
    func unknownLength() async throws {
        try await withH2UploadServer { server in
            let chunks = PatternChunks(total: 2 << 20, chunkSize: 64 << 10, pause: .milliseconds(2))
            let body = RequestBody.stream(chunks, length: nil)
            let report = try await makeTLSManager().perform(StreamUploadRequest<H2UploadServer.Report>(server.provider(), "/upload", body: body))
            #expect(report.httpVersion == "2")
            #expect(report.size == chunks.total)
            #expect(!report.chunked)
            #expect(report.pattern)
            // The sequence was slower than the connection: the transfer paused and resumed.
            #expect((uploadStream(of: body)?.statistics.pauses ?? 0) > 0)
        }
    }

    @Test("A body of known length arrives whole over HTTP/2, byte for byte")
    func knownLength() async throws {
        try await withH2UploadServer { server in
            let chunks = PatternChunks(total: 3_000_017, chunkSize: 100_000)
            let report = try await makeTLSManager().perform(StreamUploadRequest<H2UploadServer.Report>(
                server.provider(), "/upload", body: .stream(chunks, length: chunks.total), method: .put))
            #expect(report.httpVersion == "2")
            #expect(report.size == chunks.total)
            #expect(report.pattern)
        }
    }
}
