import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `EventStream.forEachEvent`: events lent as views of the bytes they arrived in. Against
/// sse_server.py: the same events as `for try await`, every parsing rule, reconnection, mocks,
/// a reader that throws, and what a hostile server sends (`/sse/hostile`).
@Suite("Event stream views", .sharing)
struct EventStreamBorrowingTests {
    /// Every event of `stream` read as views, kept as `ServerSentEvent`s; the error that ended it.
    static func collectViews(_ stream: EventStream) async -> (events: [ServerSentEvent], error: (any Error)?) {
        var events: [ServerSentEvent] = []
        do {
            try await stream.forEachEvent { events.append(ServerSentEvent($0)) }
            return (events, nil)
        } catch {
            return (events, error)
        }
    }

    @Test("forEachEvent gives the events for try await gives, through every parsing rule (split lines, CRLF, BOM, comments, ids, retry)",
          arguments: ["/sse/rules", "/sse/ticks?count=50&size=300", "/sse/echo-auth?piece=2"])
    func sameEventsAsTheLoop(path: String) async throws {
        try await withSSEServer { server in
            let net = makeManager()
            let viewed = await Self.collectViews(try await net.perform(StreamRequest<EventStream>(server.provider(), path)))
            let looped = await collect(try await net.perform(StreamRequest<EventStream>(server.provider(), path)))
            #expect(viewed.error == nil && looped.error == nil, "\(String(describing: viewed.error)) \(String(describing: looped.error))")
            #expect(!viewed.events.isEmpty)
            #expect(viewed.events == looped.events)
            // Both readers run on one scanner: the rules' events are checked against the standard's.
            if path == "/sse/rules" { #expect(viewed.events == EventStreamTests.rulesEvents) }
        }
    }

    @Test("A view's fields read without a string: data bytes, type, id, decode, and the comparisons")
    func viewFields() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(StreamRequest<EventStream>(server.provider(), "/sse/ticks?count=3"))
            var seen: [(Int, Int, Bool, Bool, String?)] = []
            try await stream.forEachEvent { event in
                let tick = try event.decode(Tick.self)
                var id: String?
                if let bytes = event.id { id = bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
                #expect(id == event.idString)
                seen.append((tick.n, event.data.byteCount, event.isEvent("tick"), event.isEvent("message"), id))
                // Outside #expect: its expansion takes the receiver as a value, which a view cannot be.
                let equalsItself = event.dataEquals(event.dataString)
                let equalsLonger = event.dataEquals(event.dataString + " ")
                var typeBytes = 0
                if let type = event.event { typeBytes = type.byteCount }
                #expect(equalsItself && !equalsLonger && typeBytes == 4)
            }
            #expect(seen.map(\.0) == [1, 2, 3])
            #expect(seen.allSatisfy { $0.1 == #"{"n":1,"pad":""}"#.utf8.count && $0.2 && !$0.3 })
            #expect(seen.map(\.4) == ["1", "2", "3"])
        }
    }

    @Test("A connection cut mid-stream reconnects under forEachEvent too: every event once, resuming after the last id")
    func reconnects() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(EventStreamReconnectionTests.request(server, "count=10&cut=3&end=abandon&key=views"))
            var ticks: [Int] = []
            var ids: [String?] = []
            try await stream.forEachEvent { event in
                ticks.append(try event.decode(Tick.self).n)
                ids.append(ServerSentEvent(event).id)
            }
            #expect(ticks == Array(1...10))
            #expect(ids == (1...10).map { "\($0)" })
            #expect(try await EventStreamReconnectionTests.log(of: server, key: "views").lastEventIDs == [nil, "3", "6", "9", "10"])
        }
    }

    @Test("MockResponse.events answers forEachEvent with exactly those events")
    func mocks() async throws {
        let net = makeManager(mocks: try temporaryDirectory())
        let sent = [ServerSentEvent(id: "a", data: "one"), ServerSentEvent(event: "delta", data: "two\nlines"),
                    ServerSentEvent(data: "three", retry: .milliseconds(2500))]
        net.mocks.register(.get, "/v1/chat", .events(sent))
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: 9, headers: [:])
        let viewed = await Self.collectViews(try await net.perform(StreamRequest<EventStream>(provider, "/v1/chat")))
        #expect(viewed.error == nil)
        #expect(viewed.events == sent)
    }

    @Test("Read as views, a stream is logged with its event count and bytes, and recorded with an echoed credential redacted")
    func logAndRecord() async throws {
        let token = "nlViewToken4Qm8z"
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withSSEServer { server in
            let log = LogCollector()
            let net = makeManager(log: log)
            net.mockRecordingDirectory = directory
            var count = 0
            try await net.perform(StreamRequest<EventStream>(server.provider(), "/sse/ticks?count=3")).forEachEvent { _ in count += 1 }
            #expect(count == 3)
            let bytes = (1...3).map(StreamLoggingTests.tickBytes).reduce(0, +)
            #expect(log.text.contains(" ms, 3 events, \(bytes) bytes, finished"), "\(log.text)")

            let provider = AuthProvider(port: server.port, authentication: .bearer(token))
            var first = ""
            try await net.perform(StreamRequest<EventStream>(provider, "/sse/echo-auth?piece=3", mock: "Echo")).forEachEvent { event in
                if first.isEmpty { first = event.dataString }
            }
            #expect(first == "Bearer \(token)", "the server echoed the token: the test means something")
            let file = try Data(contentsOf: directory.appendingPathComponent("Echo.sse"))
            #expect(!spellsSecret(token, in: file), "\(String(decoding: file, as: UTF8.self))")
            var replayed: [String] = []
            try await makeManager(mocks: directory).perform(StreamRequest<EventStream>(provider, "/sse/echo-auth", mock: "Echo"))
                .forEachEvent { replayed.append($0.dataString) }
            #expect(replayed.count == 2 && replayed.allSatisfy { $0.contains("<redacted>") }, "\(replayed)")
        }
    }

    struct Enough: Error, Equatable {}

    @Test("A reader that throws ends forEachEvent with its error, and the stream's connection is released")
    func readerThrows() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(StreamRequest<EventStream>(server.provider(), "/sse/forever?interval=5"))
            var count = 0
            await #expect(throws: Enough.self) {
                try await stream.forEachEvent { _ in
                    count += 1
                    if count == 3 { throw Enough() }
                }
            }
            #expect(count == 3)
            let stats = try await server.statsOnceClosed()
            #expect(stats.open == 0, "the server still writes to \(stats.open) streams")
        }
    }

    @Test("Cancelling the reading task ends forEachEvent with .cancelled and releases the connection")
    func cancelled() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(StreamRequest<EventStream>(server.provider(), "/sse/forever?interval=5"))
            let started = AsyncStream<Void>.makeStream()
            let reader = Task {
                var signalled = false
                try await stream.forEachEvent { _ in
                    if !signalled { started.continuation.yield(); signalled = true }
                }
            }
            for await _ in started.stream { break }
            reader.cancel()
            let result = await reader.result
            guard case .failure(let error) = result, case .cancelled? = error as? NetworkError else {
                Issue.record("expected .cancelled, got \(result)")
                return
            }
            #expect(try await server.statsOnceClosed().open == 0)
        }
    }

    // MARK: A hostile server

    /// The error each reader ends with on `/sse/hostile?kind=`, and the events it got first.
    static func bothReaders(_ server: SSEServer, kind: String) async throws
        -> (viewed: (events: [ServerSentEvent], error: (any Error)?), looped: (events: [ServerSentEvent], error: NetworkError?)) {
        let net = makeManager()
        let request = { StreamRequest<EventStream>(server.provider(), "/sse/hostile?kind=\(kind)", timeout: TestTimeout.seconds(60)) }
        let viewed = await collectViews(try await net.perform(request()))
        let looped = await collect(try await net.perform(request()))
        return (viewed, looped)
    }

    @Test("An event of 64 MB ends both readers with .transport saying the 16 MB limit, and releases the connection")
    func eventOf64MB() async throws {
        try await withSSEServer { server in
            let (viewed, looped) = try await Self.bothReaders(server, kind: "bigevent")
            for (events, error) in [(viewed.events, viewed.error), (looped.events, looped.error as (any Error)?)] {
                #expect(events.isEmpty)
                guard case .transport(let context)? = error as? NetworkError else {
                    Issue.record("expected .transport, got \(String(describing: error))")
                    continue
                }
                #expect(context.reason?.contains("larger than 16777216 bytes") == true, "\(String(describing: context.reason))")
            }
            #expect(try await server.statsOnceClosed().open == 0)
        }
    }

    @Test("A line without end ends both readers with .transport at 16 MB, and releases the connection")
    func endlessLine() async throws {
        try await withSSEServer { server in
            let (viewed, looped) = try await Self.bothReaders(server, kind: "endless")
            for error in [viewed.error, looped.error as (any Error)?] {
                guard case .transport(let context)? = error as? NetworkError else {
                    Issue.record("expected .transport, got \(String(describing: error))")
                    continue
                }
                #expect(context.reason?.contains("longer than 16777216 bytes") == true, "\(String(describing: context.reason))")
            }
            #expect(try await server.statsOnceClosed().open == 0)
        }
    }

    @Test("10 million blank lines (events without data) hand out nothing, then the one real event")
    func tenMillionEmptyEvents() async throws {
        try await withSSEServer { server in
            let (viewed, looped) = try await Self.bothReaders(server, kind: "empties")
            #expect(viewed.error == nil && looped.error == nil)
            #expect(try EventStreamReconnectionTests.ticks(viewed.events) == [1])
            #expect(viewed.events == looped.events)
        }
    }

    @Test("Data that is not valid UTF-8 reaches the view as sent, and its String repaired as the loop's is")
    func invalidUTF8() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(StreamRequest<EventStream>(server.provider(), "/sse/hostile?kind=invalid"))
            var raw: [[UInt8]] = []
            var strings: [String] = []
            try await stream.forEachEvent { event in
                raw.append(event.data.withUnsafeBytes { Array($0) })
                strings.append(event.dataString)
            }
            #expect(raw == [[0x61, 0x80, 0x62], [0xE2, 0x82, 0x0A, 0x63, 0xC0, 0x80], Array("ok".utf8)])
            let looped = await collect(try await makeManager().perform(StreamRequest<EventStream>(server.provider(), "/sse/hostile?kind=invalid")))
            #expect(strings == looped.events.map(\.data))
            #expect(strings[0] == "a\u{FFFD}b")
        }
    }

    @Test("A view, or a span of one, kept past the closure does not compile; a String made of it does")
    func viewCannotEscape() async throws {
        func source(_ body: String) -> String {
            """
            import NetworkLayer
            func read(_ stream: EventStream) async throws {
                \(body)
            }
            """
        }
        let kept = try await Toolchain.compile(source("""
            var kept: String? = nil
            try await stream.forEachEvent { event in kept = event.dataString }
            _ = kept
            """))
        #expect(kept.status == 0, "\(kept)")
        for leak in ["var kept: RawSpan? = nil\n    try await stream.forEachEvent { event in kept = event.data }\n    _ = kept",
                     "var kept: RawSpan? = nil\n    try await stream.forEachEvent { event in kept = event.id }\n    _ = kept"] {
            let outcome = try await Toolchain.compile(source(leak))
            #expect(outcome.status != 0 && outcome.output.contains("escapes its scope"), "\(outcome)")
        }
        let copied = try await Toolchain.compile(source("""
            var kept: [ServerSentEvent.View] = []
            try await stream.forEachEvent { event in kept.append(event) }
            """))
        #expect(copied.status != 0, "\(copied)")
    }
}
