import Foundation
@testable import NetworkLayer

/// The server-sent events parser (`ServerSentEventParser`, what an `EventStream` runs over the
/// body as it arrives): any bytes as a body, cut into chunks at positions the input chooses.
///
/// Checked against the rules the parser documents (WHATWG's "Interpreting an event stream"),
/// written out plainly here over the whole body at once: one leading byte order mark skipped;
/// lines end at CR, LF or CRLF; a line starting with `:` is a comment; the field name runs to the
/// first `:`, one space after it is dropped; `data` appends (lines joined with LF), `event` sets
/// the type, `id` sets the last event ID unless it holds NUL, `retry` with digits only sets the
/// next event's reconnection time; a blank line dispatches an event that has data; an event
/// without its blank line at the end is discarded. The parser fed in chunks gives exactly those
/// events, never throws on a body this small, and gives them again after `finish()`. After each
/// chunk, the id it reports for a reconnection is the last event ID as of the last blank line
/// (the id of the last dispatched event, or of a block without data): never the `id:` of an
/// event the input so far ends in, whose id a reconnection would otherwise skip past. (The
/// `event-stream` target checks that chunking changes nothing and the round trip through mock
/// text; this one checks the rules themselves.)
enum EventStreamRulesFuzz {
    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        let cuts = (0..<bytes.choice(16)).map { _ in Int(bytes.byte()) }
        let body = bytes.rest()
        let expected = model(body).events

        var parser = ServerSentEventParser()
        for _ in 0..<2 { // the second time after `finish()`: a parser is ready for a new body
            var events: [ServerSentEvent] = []
            var start = 0
            for cut in (cuts.map { body.isEmpty ? 0 : $0 % (body.count + 1) } + [body.count]).sorted() where cut >= start {
                do {
                    try parser.feed(Data(body[start..<cut]), into: &events)
                } catch {
                    throw FuzzFailure("the parser refused a \(body.count)-byte body: \(error)")
                }
                start = cut
                let resumedAfter = model(Array(body[..<cut])).lastEventID
                try require(parser.resumption?.lastEventID == resumedAfter,
                            "after \(show(Array(body[..<cut]))) the parser would resume after "
                                + "\(shown(parser.resumption?.lastEventID)), not \(shown(resumedAfter))")
            }
            parser.finish()
            try require(events == expected, "chunks at \(cuts) of \(show(body)) gave \(events), not \(expected)")
        }
    }

    /// The events of a whole body, by the documented rules, and the last event ID a reconnection
    /// sends after it: the `id:` in effect at the last blank line (`nil` when none set one).
    private static func model(_ input: [UInt8]) -> (events: [ServerSentEvent], lastEventID: String?) {
        var body = input[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = body.startIndex
        var i = body.startIndex
        while i < body.endIndex {
            let c = body[i]
            if c == 0x0A || c == 0x0D {
                lines.append(body[lineStart..<i])
                if c == 0x0D, i + 1 < body.endIndex, body[i + 1] == 0x0A { i += 1 }
                lineStart = i + 1
            }
            i += 1
        }
        // What follows the last line end is a line without its end: dropped.

        var events: [ServerSentEvent] = []
        var data: [UInt8] = []
        var hasData = false
        var type: String?
        var lastID: String?
        var dispatchedID: String?
        var retry: Duration?
        for line in lines {
            if line.isEmpty {
                dispatchedID = lastID
                if hasData {
                    events.append(ServerSentEvent(id: lastID.flatMap { $0.isEmpty ? nil : $0 }, event: type.flatMap { $0.isEmpty ? nil : $0 },
                                                  data: String(decoding: data, as: UTF8.self), retry: retry))
                    retry = nil
                }
                data = []
                hasData = false
                type = nil
                continue
            }
            if line.first == UInt8(ascii: ":") { continue }
            let colon = line.firstIndex(of: UInt8(ascii: ":"))
            let name = Array(line[..<(colon ?? line.endIndex)])
            var value = colon.map { line[($0 + 1)...] } ?? []
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
            switch String(decoding: name, as: UTF8.self) {
            case "data":
                if hasData { data.append(0x0A) }
                data += value
                hasData = true
            case "event":
                type = String(decoding: value, as: UTF8.self)
            case "id":
                if !value.contains(0) { lastID = String(decoding: value, as: UTF8.self) }
            case "retry":
                if !value.isEmpty, value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
                    var milliseconds: Int64 = 0
                    for digit in value {
                        let (times, overflow) = milliseconds.multipliedReportingOverflow(by: 10)
                        let (sum, overflow2) = times.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
                        milliseconds = overflow || overflow2 ? .max : sum
                        if milliseconds == .max { break }
                    }
                    retry = .milliseconds(milliseconds)
                }
            default:
                break
            }
        }
        return (events, dispatchedID)
    }

    /// An id as a message shows it: quoted, or "no id".
    static func shown(_ id: String?) -> String {
        id.map(\.debugDescription) ?? "no id"
    }

    private static func show(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(200), as: UTF8.self).debugDescription + (bytes.count > 200 ? "… (\(bytes.count) bytes)" : "")
    }
}
