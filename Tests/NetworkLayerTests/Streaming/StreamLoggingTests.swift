import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What the log says about a stream: the request, the status and headers when it opens, one
/// line when it ends (items, bytes, duration, how it ended); event contents only in previews,
/// redacted and cut like bodies.
@Suite("Stream logging", .sharing)
struct StreamLoggingTests {
    /// Bytes of /sse/ticks' event `index` (no pad), as sse_server.py writes it.
    static func tickBytes(_ index: Int) -> Int {
        "id: \(index)\nevent: tick\ndata: {\"n\":\(index),\"pad\":\"\"}\n\n".utf8.count
    }

    @Test("The log shows the status and headers when the stream opens, then one line at its end: events, bytes, duration, finished")
    func openAndEnd() async throws {
        try await withSSEServer { server in
            let log = LogCollector()
            let entries = LogEntryCollector()
            let net = makeManager(log: log, entries: entries)
            let events = await collect(try await net.perform(StreamRequest<EventStream>(server.provider(), "/sse/ticks?count=3")))
            #expect(events.events.count == 3)
            let text = log.text
            let bytes = (1...3).map(Self.tickBytes).reduce(0, +)
            #expect(text.contains("← 200 GET http://127.0.0.1:\(server.port)/sse/ticks?count=3 in "), "\(text)")
            #expect(text.contains("ms, streaming"), "\(text)")
            #expect(text.contains("Content-Type: text/event-stream"), "\(text)")
            #expect(text.contains("⇣ stream of GET http://127.0.0.1:\(server.port)/sse/ticks?count=3 ended after "), "\(text)")
            #expect(text.contains(" ms, 3 events, \(bytes) bytes, finished"), "\(text)")

            let phases = entries.all.filter { $0.level >= .info }.map(\.phase)
            #expect(phases == [.request, .response, .streamEnded], "\(phases)")
            let end = try #require(entries.all.first { $0.phase == .streamEnded && $0.level == .info })
            #expect(end.bytesReceived == Int64(bytes))
            #expect((end.elapsed ?? .zero) > .zero)
            // The summary holds no event content; only the debug entry's preview does.
            #expect(!end.message.contains("\"n\":1"))
            let preview = try #require(entries.all.first { $0.phase == .streamEnded && $0.level == .debug })
            #expect(preview.body?.contains(#"{"n":1,"pad":""}"#) == true, "\(String(describing: preview.body))")
        }
    }

    @Test("Leaving the loop early logs the stream as cancelled; a reset logs it as failed, at error level")
    func cancelledAndFailed() async throws {
        try await withSSEServer { server in
            let entries = LogEntryCollector()
            let net = makeManager(entries: entries)
            for try await event in try await net.perform(StreamRequest<EventStream>(server.provider(), "/sse/forever?interval=10")) {
                if event.id == "2" { break }
            }
            let cancelled = try #require(entries.all.first { $0.phase == .streamEnded && $0.level >= .info })
            #expect(cancelled.message.contains("2 events"), "\(cancelled.message)")
            #expect(cancelled.message.contains("cancelled"), "\(cancelled.message)")

            let failing = LogEntryCollector()
            _ = await collect(try await makeManager(entries: failing).perform(StreamRequest<EventStream>(server.provider(), "/sse/reset")))
            let failed = try #require(failing.all.first { $0.phase == .streamEnded && $0.level >= .info })
            #expect(failed.level == .error)
            #expect(failed.message.contains("2 events") && failed.message.contains("failed:"), "\(failed.message)")
            #expect(failed.errorDescription != nil)
        }
    }

    @Test("Without the verbose log no event content is written; with it, previews are redacted and cut like bodies")
    func previewsRedactedAndCut() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        let secret = "sk-live-7d1c0ffee"
        let long = String(repeating: "x", count: 10_000)
        try mocks.write("Chat", fileExtension: "sse", body: """
            data: {"text":"echo \(secret)","password":"hunter2"}

            data: \(long)

            data: [DONE]


            """)
        let provider = AuthProvider(port: try closedPort(), authentication: .bearer(secret))

        // The text log off: nothing written at all; the entries' summary holds no content.
        let quiet = LogCollector()
        let entries = LogEntryCollector()
        let net = makeManager(mocks: mocks.url, entries: entries)
        net.logHandler = { quiet.append($0) }
        _ = await collect(try await net.perform(StreamRequest<EventStream>(provider, "/v1/chat", mock: "Chat")))
        #expect(quiet.all.isEmpty)
        let summary = try #require(entries.all.first { $0.phase == .streamEnded && $0.level == .info })
        #expect(summary.message.contains("3 events") && summary.message.contains("[MOCK]"), "\(summary.message)")
        #expect(!summary.message.contains("echo") && summary.body == nil)

        // Verbose: the preview shows the events, without the secret (the request's credential,
        // echoed by the server) or the secret-looking field, and cut.
        let log = LogCollector()
        let verbose = makeManager(mocks: mocks.url, log: log, entries: entries)
        _ = await collect(try await verbose.perform(StreamRequest<EventStream>(provider, "/v1/chat", mock: "Chat")))
        let text = log.text
        #expect(text.contains("echo "), "\(text)")
        #expect(text.contains("[DONE]") || text.contains("truncated"), "\(text)")
        #expect(!text.contains(long))
        #expect(text.contains("xxxx"))
        #expect(!text.contains("hunter2"), "\(text)")
        #expect(!entries.texts.contains { $0.contains(secret) || $0.contains("hunter2") })
        #expect(!text.contains(secret), "\(text)")
    }
}
