import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Events that keep the bytes of their one `data:` line (a slice of the chunk) and decode them when
/// `data` is read: the same events as before, by every observable field.
@Suite("Server-sent event bytes", .sharing)
struct ServerSentEventBytesTests {
    static func events(_ chunks: [String]) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for chunk in chunks { try parser.feed(chunk: Data(chunk.utf8), into: &events) }
        return events
    }

    static func keepsBytes(_ event: ServerSentEvent) -> Bool {
        if case .bytes = event.payload { return true }
        return false
    }

    @Test("A one-line data within its chunk is kept as bytes; several lines or a line split across chunks as a String")
    func payloads() throws {
        let events = try Self.events([": hi\nid: 1\ndata: {\"n\":1}\n\ndata: a\ndata: b\n\ndata: spl", "it\n\n"])
        #expect(events.map(\.data) == [#"{"n":1}"#, "a\nb", "split"])
        #expect(events.map(Self.keepsBytes) == [true, false, false])
        #expect(events[0] == ServerSentEvent(id: "1", data: #"{"n":1}"#))
    }

    @Test("The blank line may come in a later chunk: the bytes of the earlier one stay the event's")
    func dispatchInLaterChunk() throws {
        // (The body's first bytes are held back until they are known not to be a BOM: a comment goes first.)
        let events = try Self.events([": hi\ndata: early\n", "\n"])
        #expect(events.map(\.data) == ["early"])
        #expect(Self.keepsBytes(events[0]))
    }

    @Test("Invalid UTF-8 reads as U+FFFD, as a String made at once did; decode sees the repaired text")
    func invalidUTF8() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.feed(chunk: Data(": hi\ndata: {\"t\":\"a".utf8) + Data([0xFF]) + Data("é\"}\n\n".utf8), into: &events)
        #expect(events.first?.data == "{\"t\":\"a\u{FFFD}é\"}")
        struct Text: Decodable { let t: String }
        #expect(try events.first?.decode(Text.self).t == "a\u{FFFD}é")
    }

    @Test("decode reads the bytes; setting data replaces them")
    func decodeAndSet() throws {
        var event = try #require(try Self.events([": hi\ndata: {\"n\":7}\n\n"]).first)
        #expect(Self.keepsBytes(event))
        #expect(try event.decode(Tick.self) == Tick(n: 7))
        event.data = #"{"n":8}"#
        #expect(!Self.keepsBytes(event))
        #expect(try event.decode(Tick.self) == Tick(n: 8))
        #expect(event.description == "data: {\"n\":8}\n\n")
    }

    @Test("A chunk that is a slice of a larger Data gives the same events")
    func slicedChunk() throws {
        let whole = Data("xxxx: hi\ndata: one\n\ndata: two\n\n".utf8)
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.feed(chunk: whole[4...], into: &events)
        #expect(events.map(\.data) == ["one", "two"])
        #expect(events.allSatisfy(Self.keepsBytes))
    }
}
