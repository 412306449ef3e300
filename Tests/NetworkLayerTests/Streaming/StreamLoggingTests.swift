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
            // The log counts the events parsed from what arrived, so the loop must leave before the
            // third arrives: ticks 1.5 s apart leave a slow machine (a sanitizer, busy cores) time to
            // run the loop's task, and never come in one read.
            for try await event in try await net.perform(StreamRequest<EventStream>(server.provider(), "/sse/forever?interval=1500")) {
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

    /// One line of httpbin's `/stream/<n>`: the request echoed (URL, query, headers) with a number.
    /// Only `Decodable`, as an app's stream element often is: the log cannot re-encode it.
    struct StreamedRequestEcho: Decodable, Sendable {
        let id: Int
        let url: String
    }

    @Test("A JSON-lines stream's preview shows the lines that arrived, not the element's type name, redacted like a body")
    func jsonLinesPreviewShowsTheReceivedText() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let token = "nlJSONLinesToken4e7a"
        let apiKey = "nlJSONLinesKey9b1c"
        let provider = AuthProvider(port: httpbin.port, authentication: .bearer(token))
        let log = LogCollector()
        let entries = LogEntryCollector()
        let net = makeManager(log: log, entries: entries)
        let (values, error) = await collectValues(try await net.perform(
            StreamRequest<JSONLines<StreamedRequestEcho>>(provider, "/stream/5?api_key=\(apiKey)")))
        #expect(error == nil)
        #expect(values.map(\.id) == [0, 1, 2, 3, 4])
        // httpbin sent the secrets back in every line: the query in "url" and "args", the token in "headers".
        #expect(values.allSatisfy { $0.url.contains(apiKey) })

        let text = log.text
        let preview = try #require(entries.all.first { $0.phase == .streamEnded && $0.level == .debug }?.body)
        for id in 0..<5 {
            #expect(preview.contains("\"id\":\(id)"), "line \(id) is not in the preview: \(preview)")
        }
        #expect(preview.split(separator: "\n").count == 5, "one preview line per JSON line: \(preview)")
        #expect(!preview.contains("StreamedRequestEcho"), "\(preview)")
        #expect(!text.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == "StreamedRequestEcho" }, "\(text)")
        // Redacted like a body: a secret-looking field by its name, the request's secrets wherever they are.
        #expect(preview.contains(#""Authorization":"<redacted>""#), "\(preview)")
        #expect(preview.contains(#""api_key":"<redacted>""#), "\(preview)")
        for secret in [token, apiKey] {
            #expect(!text.contains(secret), "\(secret) in the text log")
            #expect(!entries.texts.contains { $0.contains(secret) }, "\(secret) in an entry")
        }
    }

    @Test("A long JSON-lines stream's preview is cut at the preview limit")
    func jsonLinesPreviewIsBounded() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let entries = LogEntryCollector()
        let net = makeManager(entries: entries)
        let (values, error) = await collectValues(try await net.perform(
            StreamRequest<JSONLines<StreamedRequestEcho>>(httpbin.provider(), "/stream/100")))
        #expect(error == nil && values.count == 100)
        let summary = try #require(entries.all.first { $0.phase == .streamEnded && $0.level == .info })
        #expect(summary.message.contains("100 lines") || summary.message.contains("100 values"), "\(summary.message)")
        let preview = try #require(entries.all.first { $0.phase == .streamEnded && $0.level == .debug }?.body)
        #expect(preview.hasSuffix("… (preview truncated)"), "\(preview.suffix(200))")
        #expect(preview.count <= NetworkLog.previewLimit + "\n… (preview truncated)".count)
        #expect(preview.hasPrefix("{") && preview.contains("\"id\":0"), "\(preview.prefix(200))")
    }
}
