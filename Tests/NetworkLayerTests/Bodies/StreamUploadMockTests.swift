import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// In mock mode the mock reads a streamed body whole, as a server would: a producer never waits
/// forever for its chunks to be taken, the recorded request holds the bytes (the first 1 MB), and
/// a sequence that throws or breaks its declared length fails as it would live.
@Suite("Streamed upload bodies in mock mode", .sharing)
struct StreamUploadMockTests {
    /// A provider's port with nothing listening: any network attempt fails with `.reachability`.
    let port = try! closedPort()

    func answeringManager() -> NetworkManager {
        let net = makeManager(mocks: URL(fileURLWithPath: "/nonexistent-mock-directory"))
        net.mocks.register(StreamUploadRequest<EmptyResponse>.self) { _ in .status(204) }
        return net
    }

    var provider: TestProvider { TestProvider(host: "127.0.0.1", httpScheme: .http, port: port) }

    @Test("The mock reads the whole sequence and records its bytes and content type")
    func drainedAndRecorded() async throws {
        let net = answeringManager()
        let chunks = PatternChunks(total: 300_000, chunkSize: 7_000)
        _ = try await net.perform(StreamUploadRequest<EmptyResponse>(provider, "/exports",
                                                                    body: .stream(chunks, length: 300_000, contentType: "text/csv"),
                                                                    method: .put))
        #expect(chunks.log.produced == 300_000)
        #expect(chunks.log.isEnded)
        let sent = try #require(net.mocks.requests.last)
        #expect(sent.method == .put)
        #expect(sent.body == Data(chunks.bytes))
        #expect(sent.value(forHeader: "Content-Type") == "text/csv")
    }

    @Test("A producer that waits for its chunks to be taken finishes: the mock takes them all")
    func producerDoesNotHang() async throws {
        let net = answeringManager()
        // Room for one chunk at a time: the producer awaits each yield's consumption.
        let (stream, feed) = AsyncStream.makeStream(of: Data.self, bufferingPolicy: .bufferingOldest(1))
        let producer = Task {
            for index in 0..<50 {
                while case .dropped = feed.yield(Data([UInt8(index)])) { try? await Task.sleep(for: .milliseconds(1)) }
            }
            feed.finish()
        }
        _ = try await net.perform(StreamUploadRequest<EmptyResponse>(provider, "/exports", body: .stream(stream)))
        await producer.value
        #expect(net.mocks.requests.last?.body == Data((0..<50).map { UInt8($0) }))
    }

    @Test("A body over 1 MB is read whole and recorded as a note with its size")
    func largeBodyNoted() async throws {
        let net = answeringManager()
        let chunks = PatternChunks(total: 3 << 20)
        _ = try await net.perform(StreamUploadRequest<EmptyResponse>(provider, "/exports", body: .stream(chunks)))
        #expect(chunks.log.produced == 3 << 20)
        let body = try #require(net.mocks.requests.last?.body)
        #expect(String(decoding: body, as: UTF8.self) == "<streamed body: \(3 << 20) bytes, not recorded: larger than 1 MB>")
    }

    @Test("A sequence that throws, or breaks its declared length, fails in mock mode as it would live")
    func failuresAsLive() async throws {
        let net = answeringManager()
        let throwing = await FaultOutcome { () throws(NetworkError) in
            try await net.perform(StreamUploadRequest<EmptyResponse>(provider, "/exports", body: .stream(
                PatternChunks(total: 10_000, chunkSize: 1000, failAfter: 3000, failure: ExportFailed(row: 3)))))
        }
        #expect(throwing.error?.caseName == "invalidRequest")
        #expect(throwing.error?.underlyingError as? ExportFailed == ExportFailed(row: 3))
        let long = await FaultOutcome { () throws(NetworkError) in
            try await net.perform(StreamUploadRequest<EmptyResponse>(provider, "/exports",
                                                                     body: .stream(PatternChunks(total: 1001), length: 1000)))
        }
        #expect(long.error?.context?.reason?.contains("more than the declared length of 1000 bytes") == true)
        let short = await FaultOutcome { () throws(NetworkError) in
            try await net.perform(StreamUploadRequest<EmptyResponse>(provider, "/exports",
                                                                     body: .stream(PatternChunks(total: 999), length: 1000)))
        }
        #expect(short.error?.context?.reason?.contains("ended after 999 bytes") == true)
    }
}
