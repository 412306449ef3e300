import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The log, the structured entries and copy-as-curl describe a streamed body by its length and
/// never show its bytes (which do not exist when the request is logged, and would be a leak if
/// they did); copy-as-curl reads the body from stdin, saying so.
@Suite("Streamed upload bodies in the log and copy-as-curl", .sharing)
struct StreamUploadLoggingTests {
    static let canary = "CANARY-BODY-0d9f"

    /// A body made of the canary, repeated.
    static func canaryChunks() -> AsyncStream<Data> {
        AsyncStream { feed in
            for _ in 0..<8 { feed.yield(Data(canary.utf8)) }
            feed.finish()
        }
    }

    @Test("The verbose log and the entries say 'streamed' with the length (or that it is unknown), never the bytes")
    func logShowsNoBytes() async throws {
        try await withSSEServer { server in
            let log = LogCollector()
            let entries = LogEntryCollector()
            let net = makeManager(log: log, entries: entries)
            let length = Self.canary.utf8.count * 8
            _ = try await net.perform(StreamUploadRequest<UploadReport>(server.provider(), "/upload",
                                                                        body: .stream(Self.canaryChunks(), length: length)))
            _ = try await net.perform(StreamUploadRequest<UploadReport>(server.provider(), "/upload", body: .stream(Self.canaryChunks())))
            #expect(log.text.contains("body: streamed, \(length) bytes"))
            #expect(log.text.contains("body: streamed, length unknown"))
            #expect(log.text.contains("--data-binary @-"))
            #expect(!log.text.contains(Self.canary))
            #expect(!entries.texts.contains { $0.contains(Self.canary) })
            #expect(entries.all.contains { $0.body?.contains("body: streamed, \(length) bytes") == true })
        }
    }

    @Test("Copy-as-curl reads the body from stdin and says so; building it does not consume the sequence")
    func curlCommand() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            let chunks = PatternChunks(total: 5000)
            let request = StreamUploadRequest<UploadReport>(server.provider(), "/upload", body: .stream(chunks, length: 5000))
            let command = try await net.curlCommand(for: request)
            #expect(command.contains("--data-binary @-"))
            #expect(command.contains("pipe its 5000 bytes into this command"))
            #expect(chunks.log.chunksRequested == 0)
            let report = try await net.perform(request)
            #expect(report.size == 5000)
        }
    }
}
