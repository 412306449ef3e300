import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Streams in mock mode: `<name>.sse`, `<name>.ndjson`, any other file for a ByteStream, the
/// sidecar's `delay` before the headers and `eventDelay` between events or lines, and
/// `MockResponse.events` in code. No network: the provider's port has nothing listening.
@Suite("Mock streams", .sharing)
struct StreamMockTests {
    let offline = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try! closedPort())

    static let chat = """
        : a chat-style answer
        data: {"text":"Hel"}

        data: {"text":"lo"}\r
        \r
        event: delta
        data: {"text":" wor"}

        id: 4
        data: {"text":"ld"}

        data: [DONE]


        """

    @Test("An .sse mock is read event by event: the sidecar's delay before the headers, its eventDelay between events", .measuring)
    func sseMockWithDelays() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Chat", fileExtension: "sse", body: Self.chat)
        try mocks.write("Chat", sidecar: #"{"delay": 0.3, "eventDelay": 0.1}"#)
        let net = makeManager(mocks: mocks.url)
        let (stream, elapsed) = try await measure {
            try await net.perform(StreamRequest<EventStream>(offline, "/v1/chat", mock: "Chat"))
        }
        #expect(elapsed >= .milliseconds(300), "\(elapsed)")
        #expect(stream.response.isMocked)
        #expect(stream.response.value(forHeader: "Content-Type") == "text/event-stream")
        let (events, arrivals, error) = await collectTimed(stream)
        #expect(error == nil)
        #expect(events == [
            ServerSentEvent(data: #"{"text":"Hel"}"#), ServerSentEvent(data: #"{"text":"lo"}"#),
            ServerSentEvent(event: "delta", data: #"{"text":" wor"}"#), ServerSentEvent(id: "4", data: #"{"text":"ld"}"#),
            ServerSentEvent(id: "4", data: "[DONE]"),
        ])
        // Paced: each event comes at least the eventDelay after the one before (the first at once).
        for gap in gaps(arrivals) { #expect(gap >= .milliseconds(90), "\(gaps(arrivals))") }
        struct Chunk: Decodable { let text: String }
        #expect(try events.dropLast().map { try $0.decode(Chunk.self).text }.joined() == "Hello world")
    }

    @Test("Without an eventDelay an .sse mock is read at once, with the same events", .measuring)
    func sseMockUnpaced() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Chat", fileExtension: "sse", body: Self.chat)
        let net = makeManager(mocks: mocks.url)
        let (events, arrivals, error) = await collectTimed(try await net.perform(StreamRequest<EventStream>(offline, "/v1/chat", mock: "Chat")))
        #expect(error == nil)
        #expect(events.count == 5)
        #expect(arrivals.last! - arrivals.first! < .milliseconds(90))
    }

    @Test("A .ndjson mock feeds JSONLines a line at a time; a line that does not decode names its line number")
    func ndjsonMock() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Export", fileExtension: "ndjson", body: "{\"n\":1}\n\n{\"n\":2}\r\n{\"n\":3}")
        try mocks.write("Broken", fileExtension: "ndjson", body: "{\"n\":1}\nnot json\n{\"n\":3}\n")
        try mocks.write("Export", sidecar: #"{"eventDelay": 0.05}"#)
        let net = makeManager(mocks: mocks.url)
        let (values, error) = await collectValues(try await net.perform(StreamRequest<JSONLines<Tick>>(offline, "/export", mock: "Export")))
        #expect(error == nil)
        #expect(values == [Tick(n: 1), Tick(n: 2), Tick(n: 3)])
        #expect(try await net.perform(StreamRequest<JSONLines<Tick>>(offline, "/export", mock: "Export")).response
            .value(forHeader: "Content-Type") == "application/x-ndjson")

        let broken = await collectValues(try await net.perform(StreamRequest<JSONLines<Tick>>(offline, "/export", mock: "Broken")))
        #expect(broken.values == [Tick(n: 1)])
        guard case .serialization(let context)? = broken.error else {
            Issue.record("expected .serialization, got \(String(describing: broken.error))")
            return
        }
        #expect(context.reason?.hasPrefix("line 2 of the NDJSON body") == true, "\(context)")
    }

    @Test("A ByteStream reads <name>.bin, else <name>.json, else a file of any other extension")
    func byteStreamMockFiles() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Log", fileExtension: "txt", body: "one\ntwo\r\nthree")
        let net = makeManager(mocks: mocks.url)
        #expect(await collectLines(try await net.perform(StreamRequest<ByteStream>(offline, "/log", mock: "Log"))).lines
            == ["one", "two", "three"])
        try mocks.write("Log", body: "json\n")
        #expect(await collectLines(try await net.perform(StreamRequest<ByteStream>(offline, "/log", mock: "Log"))).lines == ["json"])
        try mocks.write("Log", fileExtension: "bin", body: "bin\n")
        #expect(await collectLines(try await net.perform(StreamRequest<ByteStream>(offline, "/log", mock: "Log"))).lines == ["bin"])
    }

    @Test("A stream whose mock is missing fails with .mockNotFound naming the .sse file it looked for")
    func missingStreamMock() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        let error = await networkError {
            try await makeManager(mocks: mocks.url).perform(StreamRequest<EventStream>(offline, "/v1/chat", mock: "Nowhere"))
        }
        guard case .mockNotFound(let filename)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(filename.contains(mocks.url.appendingPathComponent("Nowhere.sse").path), "\(filename)")
    }

    @Test("MockResponse.events answers an EventStream in code with exactly those events, paced by its eventDelay", .measuring)
    func eventsInCode() async throws {
        let net = makeManager(mocks: try temporaryDirectory())
        let sent = [ServerSentEvent(id: "a", data: "one"), ServerSentEvent(event: "delta", data: "two\nlines"),
                    ServerSentEvent(data: "three", retry: .milliseconds(2500))]
        net.mocks.register(.get, "/v1/chat", .events(sent, eventDelay: .milliseconds(80)))
        let stream = try await net.perform(StreamRequest<EventStream>(offline, "/v1/chat"))
        #expect(stream.response.statusCode == 200)
        let (events, arrivals, error) = await collectTimed(stream)
        #expect(error == nil)
        // The events as registered (an event without an id has none: the text resets it).
        #expect(events == sent)
        for gap in gaps(arrivals) { #expect(gap >= .milliseconds(70), "\(gaps(arrivals))") }
    }

    @Test("An eventDelay longer than the request's timeout ends the stream with .timeOut, as a silent server would", .measuring)
    func eventDelayBeyondTimeout() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Chat", fileExtension: "sse", body: Self.chat)
        try mocks.write("Chat", sidecar: #"{"eventDelay": 30}"#)
        let net = makeManager(mocks: mocks.url)
        // Timed from perform: the silence after the first event starts counting when the stream opens.
        let ((events, error), elapsed) = try await measure {
            let stream = try await net.perform(StreamRequest<EventStream>(offline, "/v1/chat", timeout: 0.3, mock: "Chat"))
            return await collect(stream)
        }
        #expect(events.count == 1)
        guard case .timeOut? = error else { Issue.record("expected .timeOut, got \(String(describing: error))"); return }
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(10), "\(elapsed)")
    }

    @Test("A sidecar's eventDelay that is negative, not a number or beyond an hour is refused, naming the file",
          arguments: ["-1", "1e300", "\"fast\"", "3601"])
    func hostileEventDelay(value: String) async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Chat", fileExtension: "sse", body: Self.chat)
        try mocks.write("Chat", sidecar: #"{"eventDelay": \#(value)}"#)
        let error = await networkError {
            try await makeManager(mocks: mocks.url).perform(StreamRequest<EventStream>(offline, "/v1/chat", mock: "Chat"))
        }
        guard case .invalidRequest(let context)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(context.reason?.contains(mocks.sidecarPath(of: "Chat")) == true, "\(context)")
    }
}
