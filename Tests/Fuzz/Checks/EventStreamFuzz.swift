import Foundation
@testable import NetworkLayer

/// The `text/event-stream` parser (what ``EventStream`` runs on every network chunk): the first
/// byte chooses how the rest, any bytes, is cut into chunks.
///
/// Checked: the events are the same whether the body arrives whole, a byte at a time, or cut at
/// the places the input chooses (so a line, a CRLF pair or a BOM split across chunks changes
/// nothing), and so is the id a reconnection would send when the body ends; an event's `id` never holds NUL, CR or LF and its type no CR or LF; writing the
/// events back as event-stream text (what mock mode answers `MockResponse.events` with) parses
/// to the same events; nothing traps, whatever the bytes.
enum EventStreamFuzz {
    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        let cutting = bytes.byte()
        let body = bytes.rest()

        let (whole, resumedAfter) = try parse([body])
        let (byByte, byByteResumedAfter) = try parse(body.map { [$0] })
        try require(byByte == whole, "a byte at a time gave \(byByte.count) events, whole \(whole.count)")
        try require(byByteResumedAfter == resumedAfter, "a byte at a time would resume after "
                        + "\(EventStreamRulesFuzz.shown(byByteResumedAfter)), whole after \(EventStreamRulesFuzz.shown(resumedAfter))")
        // Chunks whose lengths the input's own bytes give (1 to 16), from the `cutting` byte on.
        var chunks: [[UInt8]] = []
        var start = 0
        var index = Int(cutting)
        while start < body.count {
            let length = 1 + Int(body[index % body.count] ^ cutting) % 16
            chunks.append(Array(body[start..<min(body.count, start + length)]))
            start += length
            index += 1
        }
        let (cut, cutResumedAfter) = try parse(chunks)
        try require(cut == whole, "chunks of \(chunks.map(\.count)) gave \(cut.count) events, whole \(whole.count)")
        try require(cutResumedAfter == resumedAfter, "chunks of \(chunks.map(\.count)) would resume after "
                        + "\(EventStreamRulesFuzz.shown(cutResumedAfter)), whole after \(EventStreamRulesFuzz.shown(resumedAfter))")

        for event in whole {
            try require(event.id.map { !$0.contains("\0") && !$0.contains("\n") && !$0.contains("\r") } ?? true,
                        "an id holds NUL, CR or LF: \(String(describing: event.id).debugDescription)")
            try require(event.event.map { !$0.contains("\n") && !$0.contains("\r") } ?? true,
                        "a type holds CR or LF: \(String(describing: event.event).debugDescription)")
        }
        let written = ServerSentEventParser.encode(whole).reduce(into: [UInt8]()) { $0 += $1 }
        let reread = try parse([written]).events
        try require(reread == whole, "the events written back read as \(reread.count) events, not \(whole.count)")
    }

    /// The events, and the last event ID a reconnection would send once the chunks are read.
    private static func parse(_ chunks: [[UInt8]]) throws(FuzzFailure) -> (events: [ServerSentEvent], resumedAfter: String?) {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        do {
            for chunk in chunks { try parser.feed(Data(chunk), into: &events) }
        } catch {
            // Only an event or line over 16 MB is refused, which no fuzz input reaches.
            throw FuzzFailure("the parser refused \(chunks.reduce(0) { $0 + $1.count }) bytes: \(error)")
        }
        let resumedAfter = parser.resumption?.lastEventID
        parser.finish()
        return (events, resumedAfter)
    }
}
