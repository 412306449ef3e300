import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A streamed body that goes wrong fails its request with a clear error and never reaches the
/// server complete: a sequence that throws (the caller's error kept), one that produces more or
/// fewer bytes than its declared length, a body sent a second time.
@Suite("Streamed upload failures", .sharing)
struct StreamUploadFailureTests {
    @Test("A sequence that throws fails the request with that error as underlyingError, and the server gets no complete body")
    func sequenceThrows() async throws {
        try await withSSEServer { server in
            for length in [Optional(200_000), nil] {
                let chunks = PatternChunks(total: 200_000, chunkSize: 10_000, failAfter: 50_000, failure: ExportFailed(row: 7))
                let outcome = await FaultOutcome { () throws(NetworkError) in
                    try await makeManager().perform(StreamUploadRequest<UploadReport>(
                        server.provider(), "/upload?id=throws-\(length ?? -1)", body: .stream(chunks, length: length)))
                }
                #expect(outcome.error?.caseName == "invalidRequest", "length \(String(describing: length))")
                #expect(outcome.error?.underlyingError as? ExportFailed == ExportFailed(row: 7))
                #expect(outcome.error?.context?.reason?.contains("the request body's sequence") == true)
                let progress = try await server.uploadProgress(id: "throws-\(length ?? -1)")
                #expect(progress.received <= 50_000, "the server read \(progress.received) bytes")
            }
        }
    }

    @Test("A sequence that throws CancellationError ends the request as .cancelled")
    func sequenceThrowsCancellation() async throws {
        try await withSSEServer { server in
            let chunks = PatternChunks(total: 100_000, chunkSize: 10_000, failAfter: 20_000, failure: CancellationError())
            let outcome = await FaultOutcome { () throws(NetworkError) in
                try await makeManager().perform(StreamUploadRequest<UploadReport>(server.provider(), "/upload", body: .stream(chunks)))
            }
            #expect(outcome.error?.caseName == "cancelled")
        }
    }

    @Test("A sequence producing more than its declared length fails with .invalidRequest saying so; the server never gets the declared bytes")
    func longerThanDeclared() async throws {
        try await withSSEServer { server in
            // Exactly one byte more than declared, the hardest case: the declared bytes exist.
            for (total, declared) in [(100_001, 100_000), (300_000, 100_000), (1, 0)] {
                let id = "long-\(total)-\(declared)"
                let outcome = await FaultOutcome { () throws(NetworkError) in
                    try await makeManager().perform(StreamUploadRequest<UploadReport>(
                        server.provider(), "/upload?id=\(id)", body: .stream(PatternChunks(total: total, chunkSize: 25_000), length: declared)))
                }
                #expect(outcome.error?.caseName == "invalidRequest", "\(total) for \(declared)")
                #expect(outcome.error?.context?.reason?.contains("more than the declared length of \(declared) bytes") == true,
                        "\(String(describing: outcome.error?.context?.reason))")
                let progress = try await server.uploadProgress(id: id)
                #expect(progress.received < max(declared, 1), "the server read \(progress.received) of \(declared) bytes")
            }
        }
    }

    @Test("A sequence ending short of its declared length fails with .invalidRequest saying how short")
    func shorterThanDeclared() async throws {
        try await withSSEServer { server in
            for (total, declared) in [(99_999, 100_000), (0, 10)] {
                let outcome = await FaultOutcome { () throws(NetworkError) in
                    try await makeManager().perform(StreamUploadRequest<UploadReport>(
                        server.provider(), "/upload", body: .stream(PatternChunks(total: total, chunkSize: 25_000), length: declared)))
                }
                #expect(outcome.error?.caseName == "invalidRequest")
                #expect(outcome.error?.context?.reason?.contains("ended after \(total) bytes, short of the declared length of \(declared) bytes") == true,
                        "\(String(describing: outcome.error?.context?.reason))")
            }
        }
    }

    @Test("Performing a request whose streamed body was sent already fails with .invalidRequest, not an empty body")
    func sentTwice() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            let request = StreamUploadRequest<UploadReport>(server.provider(), "/upload?id=twice", body: .stream(PatternChunks(total: 1000)))
            let first = try await net.perform(request)
            #expect(first.size == 1000)
            let second = await FaultOutcome { () throws(NetworkError) in try await net.perform(request) }
            #expect(second.error?.caseName == "invalidRequest")
            #expect(second.error?.context?.reason?.contains("sent once already") == true)
            #expect(try await server.uploadProgress(id: "twice").attempts == 1)
        }
    }
}
