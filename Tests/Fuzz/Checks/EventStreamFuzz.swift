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
        // The borrowing reader (`EventStream.forEachEvent`): the same events, view by view, in the
        // input's chunks; each view's bytes are the event's, and its comparisons agree with them.
        let viewed = try views(chunks)
        try require(viewed.count == whole.count, "the views were \(viewed.count) events, the strings \(whole.count)")
        for (index, (view, event)) in zip(viewed, whole).enumerated() {
            try require(view.event == event, "event \(index): the view reads \(view.event), the string reader \(event)")
            try require(String(decoding: view.data, as: UTF8.self) == event.data, "event \(index): the view's bytes are not its data")
            if let text = String(validating: view.data, as: UTF8.self) {
                try require(view.equalsOwnData && text == event.data, "event \(index): dataEquals disagrees with the data")
            }
            try require(view.isOwnType, "event \(index): isEvent disagrees with the type \(String(describing: event.event))")
        }
        let written = ServerSentEventParser.encode(whole).reduce(into: [UInt8]()) { $0 += $1 }
        let reread = try parse([written]).events
        try require(reread == whole, "the events written back read as \(reread.count) events, not \(whole.count)")
    }

    /// What the check keeps of one view, made inside the scanner's callback.
    struct Viewed {
        let event: ServerSentEvent
        let data: [UInt8]
        let equalsOwnData: Bool
        let isOwnType: Bool
    }

    /// The events as the scanner lends them, in these chunks.
    private static func views(_ chunks: [[UInt8]]) throws(FuzzFailure) -> [Viewed] {
        var scanner = ServerSentEventScanner()
        var viewed: [Viewed] = []
        do {
            for chunk in chunks {
                try chunk.withUnsafeBytes(typed: { (bytes) throws(StreamParseFailure) in
                    try scanner.scan(bytes) { view in
                        let event = ServerSentEvent(view)
                        let data = view.data.withUnsafeBytes { Array($0) }
                        viewed.append(Viewed(event: event, data: data,
                                             equalsOwnData: view.dataEquals(String(decoding: data, as: UTF8.self)),
                                             isOwnType: isOwnType(view, event)))
                        return true
                    }
                })
            }
        } catch {
            throw FuzzFailure("the scanner refused \(chunks.reduce(0) { $0 + $1.count }) bytes: \(error)")
        }
        scanner.finish()
        return viewed
    }

    /// Whether `isEvent` finds the type the event carries (one not valid UTF-8 is repaired in the
    /// string, so only a valid one must match its bytes).
    private static func isOwnType(_ view: borrowing ServerSentEvent.View, _ event: ServerSentEvent) -> Bool {
        guard let type = event.event else { return view.isEvent("message") }
        var bytes: [UInt8] = []
        if let span = view.event { bytes = span.withUnsafeBytes { Array($0) } }
        guard String(validating: bytes, as: UTF8.self) != nil else { return true }
        return view.isEvent(type)
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
