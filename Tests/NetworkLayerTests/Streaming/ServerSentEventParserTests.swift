import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The event-stream parser on its own: each WHATWG rule, and the property that the chunking of
/// the bytes never changes the events.
@Suite("Server-sent event parsing", .sharing)
struct ServerSentEventParserTests {
    static func events(_ text: String) throws -> [ServerSentEvent] {
        try parseEvents([Array(text.utf8)])
    }

    @Test("data lines are joined with \\n; the last line end is not part of the data")
    func dataLines() throws {
        #expect(try Self.events("data: a\ndata: b\ndata:\n\n") == [ServerSentEvent(data: "a\nb\n")])
        #expect(try Self.events("data: x\n\n").map(\.data) == ["x"])
    }

    @Test("One space after the colon is dropped, no more; a line without a colon is a field with an empty value")
    func spaces() throws {
        #expect(try Self.events("data:x\n\ndata:  y\n\ndata\n\n").map(\.data) == ["x", " y", ""])
    }

    @Test("CR, LF and CRLF end lines, mixed in one stream")
    func lineEnds() throws {
        #expect(try Self.events("data: a\rdata: b\r\ndata: c\n\r\n\r\r").map(\.data) == ["a\nb\nc"])
        #expect(try Self.events("data: 1\r\rdata: 2\n\ndata: 3\r\n\r\n").map(\.data) == ["1", "2", "3"])
    }

    @Test("A CR ending one chunk and an LF starting the next are one line end")
    func splitCRLF() throws {
        let events = try parseEvents([Array("data: a\r".utf8), Array("\ndata: b\r".utf8), Array("\n\r".utf8), Array("\n".utf8)])
        #expect(events == [ServerSentEvent(data: "a\nb")])
    }

    @Test("id is sticky; an id containing NUL is ignored; an empty id resets it to none")
    func ids() throws {
        let events = try Self.events("id: 7\ndata: a\n\ndata: b\n\nid: 8\u{0}\ndata: c\n\nid\ndata: d\n\n")
        #expect(events.map(\.id) == ["7", "7", "7", nil])
    }

    @Test("retry with digits only sets the reconnection time of the next event; anything else is ignored")
    func retry() throws {
        let events = try Self.events("retry: 3000\ndata: a\n\ndata: b\n\nretry: 1.5\nretry: -1\nretry: x\ndata: c\n\nretry: 99999999999999999999999\ndata: d\n\n")
        #expect(events.map(\.retry) == [.milliseconds(3000), nil, nil, .milliseconds(Int64.max)])
    }

    @Test("event sets the type for one event; an event without data is not dispatched and loses its type")
    func eventTypes() throws {
        let events = try Self.events("event: a\ndata: 1\n\ndata: 2\n\nevent: b\n\ndata: 3\n\nevent:\ndata: 4\n\n")
        #expect(events.map(\.event) == ["a", nil, nil, nil])
        #expect(events.map(\.data) == ["1", "2", "3", "4"])
    }

    @Test("Comments and unknown fields are ignored")
    func comments() throws {
        #expect(try Self.events(": keep-alive\n:\nfoo: bar\ndata: x\n: between\n\n") == [ServerSentEvent(data: "x")])
    }

    @Test("A leading BOM is skipped, also split across chunks; a second BOM or a BOM later is not")
    func byteOrderMark() throws {
        #expect(try parseEvents([[0xEF], [0xBB], [0xBF] + Array("data: x\n\n".utf8)]).map(\.data) == ["x"])
        // After the first BOM, a second one is part of the first line's field name: an unknown field.
        #expect(try parseEvents([[0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("data: x\n\ndata: y\n\n".utf8)]).map(\.data) == ["y"])
        // A body that starts with part of a BOM only.
        #expect(try parseEvents([[0xEF, 0xBB], Array("data: z\n\n".utf8)]).isEmpty)
        #expect(try parseEvents([[0xEF, 0xBB]]).isEmpty)
    }

    @Test("At the end of the body an event without its blank line is discarded")
    func incompleteEvent() throws {
        #expect(try Self.events("data: a\n\ndata: b\n").map(\.data) == ["a"])
        #expect(try Self.events("data: a\n\ndata: b").map(\.data) == ["a"])
    }

    @Test("The id a reconnection sends is the last dispatched event's: an id: line of an event the body ends in, at any byte before its blank line, is not")
    func resumptionIsTheLastDispatchedID() throws {
        let dispatched = Array("id: 5\ndata: five\n\n".utf8)
        let body = dispatched + Array("id: 999\nevent: x\ndata: lost\n\n".utf8)
        for sent in 0...body.count {
            var parser = ServerSentEventParser()
            var events: [ServerSentEvent] = []
            try parser.feed(Data(body[..<sent]), into: &events)
            let expected: String? = sent == body.count ? "999" : sent >= dispatched.count ? "5" : nil
            let cut = String(decoding: body[..<sent], as: UTF8.self).debugDescription
            #expect(parser.resumption?.lastEventID == expected, "after \(cut)")
            #expect(events.last?.id == expected, "after \(cut)")
        }
    }

    @Test("A blank line makes the id the one a reconnection sends even without data; an empty id resets it; resume keeps it")
    func resumptionWithoutData() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.feed(Data("id: 7\n\n".utf8), into: &events)
        #expect(events.isEmpty)
        #expect(parser.resumption?.lastEventID == "7")
        try parser.feed(Data("id\n".utf8), into: &events)
        #expect(parser.resumption?.lastEventID == "7")
        try parser.feed(Data("\n".utf8), into: &events)
        #expect(parser.resumption?.lastEventID == "")
        parser.resume(from: StreamResumption(lastEventID: "8", retry: nil))
        try parser.feed(Data("data: after\n\nid: 9\ndata: cut".utf8), into: &events)
        #expect(events.map(\.id) == ["8"])
        #expect(parser.resumption?.lastEventID == "8")
    }

    @Test("Invalid UTF-8 becomes U+FFFD, never a crash")
    func invalidUTF8() throws {
        #expect(try parseEvents([Array("data: a".utf8) + [0xFF, 0xC3] + Array("\n\n".utf8)]).map(\.data) == ["a\u{FFFD}\u{FFFD}"])
    }

    @Test("An event's data over 16 MB and a line over 16 MB are refused, not buffered")
    func limits() {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        let line = Data(("data: " + String(repeating: "x", count: 1 << 20) + "\n").utf8)
        #expect(throws: StreamParseFailure.eventTooLarge(limit: 16 << 20)) {
            for _ in 0..<17 { try parser.feed(line, into: &events) }
        }
        var endless = ServerSentEventParser()
        let chunk = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
        #expect(throws: StreamParseFailure.lineTooLong(limit: 16 << 20)) {
            for _ in 0..<17 { try endless.feed(chunk, into: &events) }
        }
    }

    @Test("Random chunkings of the same bytes give the same events (1,000 seeded cases)")
    func chunkingDoesNotMatter() throws {
        var random = SeededRandom(seed: 14)
        let pieces = ["data: a", "data:b", "data:  c", "id: 1", "id: \u{0}", "id", "event: e", "event:", "retry: 10", "retry: 1x",
                      ": comment", "", "", "foo: bar", "data: é😀", "data"]
        let ends = ["\n", "\r", "\r\n"]
        for _ in 0..<1000 {
            var text = Bool.random(using: &random) ? "\u{FEFF}" : ""
            for _ in 0..<Int.random(in: 1...30, using: &random) {
                text += pieces.randomElement(using: &random)! + ends.randomElement(using: &random)!
            }
            let bytes = Array(text.utf8)
            let whole = try parseEvents([bytes])
            for _ in 0..<5 {
                let chunks = randomChunks(of: bytes, using: &random)
                #expect(try parseEvents(chunks) == whole, "\(text.debugDescription) in \(chunks.count) chunks")
            }
            // Byte by byte, the worst case.
            #expect(try parseEvents(bytes.map { [$0] }) == whole)
        }
    }

    @Test("Events written by encode(_:) parse back to the same events, ids, types, retries and multi-line data included")
    func encodeRoundTrip() throws {
        let events = [
            ServerSentEvent(id: "1", event: "delta", data: "{\"text\":\"Hi\"}", retry: .milliseconds(250)),
            ServerSentEvent(id: "1", data: "two\nlines"),
            ServerSentEvent(id: nil, data: " leading space"),
            ServerSentEvent(id: "9", data: ""),
        ]
        let text = ServerSentEventParser.encode(events).reduce(into: Data()) { $0.append($1) }
        #expect(try parseEvents([Array(text)]) == events)
    }

    @Test("A mock event's retry of any Duration is written without trapping: huge is the longest wait, negative is zero",
          arguments: [(Duration.seconds(1e20), "9223372036854775807"), (.seconds(Int64.max), "9223372036854775807"),
                      (.seconds(Int64.max / 1000), "9223372036854775807"), (.milliseconds(Int64.max / 1000 * 1000 - 1), "9223372036854774999"),
                      (.seconds(-1e20), "0"), (.milliseconds(-5), "0"), (.zero, "0"), (.microseconds(2500), "2")])
    func hugeRetryIsWrittenWithoutTrapping(retry: Duration, written: String) {
        let text = String(decoding: ServerSentEventParser.encode(ServerSentEvent(data: "x", retry: retry)), as: UTF8.self)
        #expect(text == "retry: \(written)\ndata: x\n\n")
        #expect(ServerSentEvent(data: "x", retry: retry).description == text)
    }

    @Test("decode(_:) reads the data as JSON, and a mismatch is .serialization naming where, not the data")
    func decode() throws {
        #expect(try ServerSentEvent(data: #"{"n":3}"#).decode(Tick.self) == Tick(n: 3))
        do {
            _ = try ServerSentEvent(event: "delta", data: #"{"secret":"s3cr3t"}"#).decode(Tick.self)
            Issue.record("decoded")
        } catch {
            guard case .serialization(let context) = error else { Issue.record("\(error)"); return }
            #expect(context.reason?.contains("the key \"n\" is missing") == true, "\(context)")
            #expect(context.reason?.contains("delta") == true)
            #expect(!(error.errorDescription ?? "").contains("s3cr3t"))
        }
    }
}
