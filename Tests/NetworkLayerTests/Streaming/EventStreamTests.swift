import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Server-sent events from a real server (sse_server.py): every parsing rule, as the network
/// delivers it (lines, UTF-8 characters and CRLF pairs split across chunks), and every way a
/// stream can end.
@Suite("Event streams", .sharing)
struct EventStreamTests {
    /// What /sse/rules must give, rule by rule (see RULES in sse_server.py).
    static let rulesEvents: [ServerSentEvent] = [
        // BOM split across writes, skipped; a comment ignored; retry, id and event set.
        ServerSentEvent(id: "1", event: "greeting", data: "hello", retry: .milliseconds(1500)),
        // CRLF line ends, the last CR and its LF in different writes; data lines joined with \n; id sticky.
        ServerSentEvent(id: "1", data: "first line\nsecond line"),
        // CR alone ends lines; one space after the colon is dropped, a second one kept.
        ServerSentEvent(id: "1", data: "no space\n two spaces"),
        // An id containing NUL is ignored.
        ServerSentEvent(id: "1", data: "an id with NUL is ignored"),
        // (An event without data is not dispatched, but its id: 3 stays.) A field without a colon: empty data.
        ServerSentEvent(id: "3", data: ""),
        // retry with a non-digit and an empty retry are ignored; unknown fields too.
        ServerSentEvent(id: "3", data: "after bad retries"),
        // An empty id resets the last event ID.
        ServerSentEvent(id: nil, data: "the id is reset"),
        // A UTF-8 character split across writes.
        ServerSentEvent(data: #"{"text":"Héllo"}"#),
        // A line split across writes; the dispatching blank line in a write of its own.
        ServerSentEvent(event: "delta", data: "a line split across writes"),
        // The incomplete event at the end of the body is discarded.
    ]

    @Test("Every WHATWG rule holds for a stream whose lines, characters and CRLF pairs arrive split across network chunks")
    func rules() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            let stream = try await net.perform(StreamRequest<EventStream>(server.provider(), "/sse/rules"))
            #expect(stream.response.statusCode == 200)
            #expect(stream.response.value(forHeader: "content-type") == "text/event-stream")
            #expect(stream.response.body.isEmpty)
            let (events, error) = await collect(stream)
            #expect(error == nil)
            #expect(events == Self.rulesEvents)
            #expect(events.map(\.retry) == Self.rulesEvents.map(\.retry))
        }
    }

    @Test("perform returns at the headers, before the first event, and events arrive as the server writes them", .measuring)
    func returnsAtHeaders() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            // 5 events 500 ms apart: the whole body takes 2.5 s, so returning well before that is
            // returning at the headers even on a loaded machine (200 ms apart failed at 870 ms).
            let (stream, elapsed) = try await measure {
                try await net.perform(StreamRequest<EventStream>(server.provider(), "/sse/ticks?count=5&interval=500"))
            }
            #expect(elapsed < .milliseconds(1_500), "\(elapsed)")
            let clock = ContinuousClock()
            var arrivals: [ContinuousClock.Instant] = []
            var ticks: [Tick] = []
            for try await event in stream {
                arrivals.append(clock.now)
                ticks.append(try event.decode(Tick.self))
                #expect(event.event == "tick")
                #expect(event.id == "\(ticks.count)")
            }
            #expect(ticks == (1...5).map(Tick.init(n:)))
            // Not all at once at the end: the first and the last are about 2 s apart.
            #expect(arrivals.last! - arrivals.first! > .milliseconds(1_000))
        }
    }

    @Test("A body that ends cleanly in the middle of an event ends the loop normally, the incomplete event discarded")
    func cleanEndMidEvent() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(StreamRequest<EventStream>(server.provider(), "/sse/clean-end-mid-event"))
            let (events, error) = await collect(stream)
            #expect(error == nil)
            #expect(events.map(\.id) == ["1", "2"])
        }
    }

    @Test("A server that closes the connection mid-event ends the loop with .transport after the complete events")
    func endMidEvent() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(StreamRequest<EventStream>(server.provider(), "/sse/end-mid-event"))
            let (events, error) = await collect(stream)
            #expect(events.map(\.id) == ["1", "2"])
            guard case .transport(let context)? = error else {
                Issue.record("expected .transport, got \(String(describing: error))")
                return
            }
            #expect(context.reason?.contains("closed the connection before the body was complete") == true, "\(context)")
            #expect(context.request?.contains("/sse/end-mid-event") == true)
        }
    }

    @Test("A connection reset mid-stream ends the loop with .transport")
    func reset() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(StreamRequest<EventStream>(server.provider(), "/sse/reset"))
            let (events, error) = await collect(stream)
            #expect(events.map(\.id) == ["1", "2"])
            #expect(error?.caseName == "transport", "\(String(describing: error))")
        }
    }

    @Test("A stream silent for longer than the timeout ends the loop with .timeOut; the timeout does not bound the whole stream", .measuring)
    func stall() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            // Ten events 300 ms apart take 3 s, three times the timeout: silence between them is what counts.
            let long = try await net.perform(StreamRequest<EventStream>(server.provider(), "/sse/ticks?count=10&interval=300", timeout: 1))
            let (ticks, tickError) = await collect(long)
            #expect(tickError == nil)
            #expect(ticks.count == 10)

            let stalled = try await net.perform(StreamRequest<EventStream>(server.provider(), "/sse/stall?after=2", timeout: 0.5))
            let ((events, error), elapsed) = await measure { await collect(stalled) }
            #expect(events.count == 2)
            guard case .timeOut(let context)? = error else {
                Issue.record("expected .timeOut, got \(String(describing: error))")
                return
            }
            #expect(context.reason == "the stream was silent for longer than the timeout of 0.5 s")
            #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(3), "\(elapsed)")
        }
    }

    @Test("The timeout bounds the wait for the response headers")
    func slowHeaders() async throws {
        try await withSSEServer { server in
            let result = await FaultOutcome { () throws(NetworkError) in
                try await makeManager().perform(StreamRequest<EventStream>(server.provider(), "/sse/slow-head?delay=3", timeout: 0.5))
            }
            guard case .timeOut(let context)? = result.error else {
                Issue.record("expected .timeOut, got \(result)")
                return
            }
            #expect(context.reason == "no response headers within the timeout of 0.5 s")
        }
    }
}
