import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `body = .stream(sequence, length:)` sends what the sequence produces while it is sent:
/// with `Content-Length` when the length is known, chunked when it is not, byte for byte (the
/// server's SHA-256 of what it read against the test's own).
@Suite("Streamed upload bodies", .sharing)
struct StreamUploadTests {
    @Test("A known length is sent with Content-Length, and exactly the sequence's bytes arrive")
    func knownLength() async throws {
        try await withSSEServer { server in
            let chunks = PatternChunks(total: 300_001, chunkSize: 70_000)
            let body = RequestBody.stream(chunks, length: chunks.total)
            let report = try await makeManager().perform(StreamUploadRequest<UploadReport>(server.provider(), "/upload", body: body))
            #expect(report.size == 300_001)
            #expect(!report.chunked)
            #expect(report.sha256 == sha256Hex(chunks.bytes))
            #expect(chunks.log.produced == 300_001)
        }
    }

    @Test("An unknown length is sent chunked on HTTP/1.1, and exactly the sequence's bytes arrive")
    func unknownLength() async throws {
        try await withSSEServer { server in
            let chunks = PatternChunks(total: 250_000, chunkSize: 10_000, pause: .milliseconds(1))
            let body = RequestBody.stream(chunks, length: nil)
            let report = try await makeManager().perform(StreamUploadRequest<UploadReport>(server.provider(), "/upload", body: body))
            #expect(report.size == 250_000)
            #expect(report.chunked)
            #expect(report.sha256 == sha256Hex(chunks.bytes))
        }
    }

    @Test("An empty sequence sends an empty body, with or without a declared length of 0")
    func emptySequence() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            let unknown = try await net.perform(StreamUploadRequest<UploadReport>(
                server.provider(), "/upload", body: .stream(AsyncStream<Data> { $0.finish() }, length: nil)))
            #expect(unknown.size == 0)
            #expect(unknown.chunked)
            #expect(unknown.sha256 == sha256Hex([UInt8]()))
            let zero = try await net.perform(StreamUploadRequest<UploadReport>(
                server.provider(), "/upload", body: .stream(AsyncStream<Data> { $0.finish() }, length: 0)))
            #expect(zero.size == 0)
            #expect(!zero.chunked)
        }
    }

    @Test("Many tiny chunks (20,000 of 1 to 7 bytes, some empty) arrive in order, whole")
    func manyTinyChunks() async throws {
        try await withSSEServer { server in
            var random = SeededRandom(seed: 14)
            var expected: [UInt8] = []
            var pieces: [Data] = []
            for index in 0..<20_000 {
                let count = index % 97 == 0 ? 0 : Int.random(in: 1...7, using: &random)
                let piece = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
                expected += piece
                pieces.append(Data(piece))
            }
            let (stream, feed) = AsyncStream.makeStream(of: Data.self)
            for piece in pieces { feed.yield(piece) }
            feed.finish()
            let net = makeManager()
            let chunked = try await net.perform(StreamUploadRequest<UploadReport>(server.provider(), "/upload", body: .stream(stream)))
            #expect(chunked.size == expected.count)
            #expect(chunked.sha256 == sha256Hex(expected))

            let (known, knownFeed) = AsyncThrowingStream.makeStream(of: Data.self, throwing: (any Error).self)
            for piece in pieces { knownFeed.yield(piece) }
            knownFeed.finish()
            let sized = try await net.perform(StreamUploadRequest<UploadReport>(
                server.provider(), "/upload", body: .stream(known, length: expected.count), method: .put))
            #expect(sized.size == expected.count)
            #expect(!sized.chunked)
            #expect(sized.sha256 == sha256Hex(expected))
        }
    }

    @Test("A body produced while it is sent: chunks yielded after the request started arrive, then the end")
    func producedWhileSent() async throws {
        try await withSSEServer { server in
            let (stream, feed) = AsyncStream.makeStream(of: Data.self)
            let net = makeManager()
            let request = StreamUploadRequest<UploadReport>(server.provider(), "/upload", body: .stream(stream, length: nil))
            let upload = Task { try await net.perform(request) }
            var expected: [UInt8] = []
            for index in 0..<20 {
                try await Task.sleep(for: .milliseconds(5))
                let piece = [UInt8](repeating: UInt8(index), count: 1000 + index)
                expected += piece
                feed.yield(Data(piece))
            }
            feed.finish()
            let report = try await upload.value
            #expect(report.size == expected.count)
            #expect(report.sha256 == sha256Hex(expected))
        }
    }

    @Test("A negative length is refused with .invalidRequest before anything is sent")
    func negativeLength() async throws {
        let port = try closedPort()
        let outcome = await FaultOutcome { () throws(NetworkError) in
            try await makeManager().perform(StreamUploadRequest<UploadReport>(
                TestProvider(host: "127.0.0.1", httpScheme: .http, port: port), "/upload",
                body: .stream(AsyncStream<Data> { $0.finish() }, length: -1)))
        }
        #expect(outcome.error?.caseName == "invalidRequest")
        #expect(outcome.error?.context?.reason?.contains("not -1") == true)
    }

    @Test("The provider's adapt(_:) sees no body bytes and the declared length; nil when it is unknown")
    func outgoingRequest() async throws {
        try await withSSEServer { server in
            let calls = AdaptCalls()
            let provider = SigningProvider(port: server.port, calls: calls)
            let net = makeManager()
            _ = try await net.perform(StreamUploadRequest<UploadReport>(provider, "/upload",
                                                                        body: .stream(PatternChunks(total: 1000), length: 1000)))
            _ = try await net.perform(StreamUploadRequest<UploadReport>(provider, "/upload", body: .stream(PatternChunks(total: 10))))
            let seen = calls.all
            #expect(seen.count == 2)
            #expect(seen.first?.body == nil)
            #expect(seen.first?.bodyLength == 1000)
            #expect(seen.last?.body == nil)
            #expect(seen.last?.bodyLength == nil)
        }
    }
}
