import Foundation

/// Parses a `text/event-stream` body into ``ServerSentEvent``s as its chunks arrive, by the
/// WHATWG HTML standard's rules ("Interpreting an event stream"), BOM and CR/LF/CRLF line ends
/// recognised across chunk boundaries. Pure and incremental (no I/O, no clock): any chunking of
/// the same bytes gives the same events.
struct ServerSentEventParser {
    /// The most data one event may carry before its blank line: 16 MB.
    static let maximumEventSize = 16 << 20

    private var lines = LineSplitter(endings: .any)
    /// The first bytes of the body while they may still be a byte order mark; `nil` once decided.
    private var start: [UInt8]? = []
    /// The event's data so far, each `data:` line decoded as it comes (repairing invalid UTF-8 per
    /// line gives what repairing the joined lines would), so a one-line event is one string.
    private var data = ""
    /// The size of `data` as the server sent it (lines and the `\n`s between them), for the limit.
    private var dataSize = 0
    private var hasData = false
    private var eventType: String?
    /// The standard's last event ID buffer: the latest `id:` line's value, which the next event carries.
    private var idBuffer: String?
    /// The standard's last event ID string: the buffer as of the last blank line, and the only id a
    /// reconnection may send. An `id:` of an event cut before its blank line never reaches it, or
    /// the server would resume after an event the reader never got.
    private var lastEventID: String?
    private var pendingRetry: Duration?
    /// The last valid `retry:` of the stream, kept across reconnections like the last event ID.
    private var reconnectionTime: Duration?
    /// The decoder events carry, for ``ServerSentEvent/decode(_:using:)``.
    let decoder: JSONDecoder?
    /// Whether FastJSON may decode the events' data (``ServerSentEvent/usesFastJSONDecoder``).
    let usesFastJSONDecoder: Bool

    init(decoder: JSONDecoder? = nil, usesFastJSONDecoder: Bool = true) {
        self.decoder = decoder
        self.usesFastJSONDecoder = usesFastJSONDecoder
    }

    mutating func feed(_ chunk: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) throws(StreamParseFailure) {
        if var head = start {
            // Hold back up to three bytes until they are known to be a BOM or not.
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            var taken = 0
            while head.count < 3, taken < chunk.count {
                head.append(chunk[taken])
                taken += 1
            }
            if head.count < 3 && head == Array(bom.prefix(head.count)) {
                start = head  // all a BOM so far, and the chunk is used up
                return
            }
            start = nil
            let rest = UnsafeRawBufferPointer(rebasing: chunk[taken...])
            if head != bom {
                try head.withUnsafeBytes(typed: { (bytes) throws(StreamParseFailure) in try feedLines(bytes, into: &events) })
            }
            try feedLines(rest, into: &events)
            return
        }
        try feedLines(chunk, into: &events)
    }

    mutating func feed(_ chunk: Data, into events: inout [ServerSentEvent]) throws(StreamParseFailure) {
        try chunk.withUnsafeBytes(typed: { (bytes) throws(StreamParseFailure) in try feed(bytes, into: &events) })
    }

    /// The end of the body: an event still waiting for its blank line is discarded, as the
    /// standard says. The parser is ready for a new body afterwards.
    mutating func finish() {
        // A body that was only part of a BOM has no lines; a line without its end is dropped.
        try? lines.finish { _ throws(StreamParseFailure) in }
        self = ServerSentEventParser(decoder: decoder, usesFastJSONDecoder: usesFastJSONDecoder)
    }

    /// What a reconnection resumes from: the id of the last event dispatched (not of one the body
    /// ended in) and the reconnection time so far.
    var resumption: StreamResumption? { StreamResumption(lastEventID: lastEventID, retry: reconnectionTime) }

    /// Starts the body of a reconnection, keeping the last event ID and reconnection time.
    mutating func resume(from resumption: StreamResumption) {
        self = ServerSentEventParser(decoder: decoder, usesFastJSONDecoder: usesFastJSONDecoder)
        lastEventID = resumption.lastEventID
        idBuffer = resumption.lastEventID
        reconnectionTime = resumption.retry
    }

    private mutating func feedLines(_ bytes: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) throws(StreamParseFailure) {
        // The splitter is moved out while it calls back into this parser (exclusive access).
        var splitter = LineSplitter.placeholder
        swap(&splitter, &lines)
        defer { swap(&splitter, &lines) }
        try splitter.feed(bytes) { (line) throws(StreamParseFailure) in try process(line, into: &events) }
    }

    private mutating func process(_ line: UnsafeBufferPointer<UInt8>, into events: inout [ServerSentEvent]) throws(StreamParseFailure) {
        guard let first = line.first else {
            dispatch(into: &events)
            return
        }
        if first == UInt8(ascii: ":") { return }  // a comment
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let name = UnsafeBufferPointer(rebasing: line[..<colon])
        var valueStart = colon
        if colon < line.endIndex {
            valueStart += 1
            if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        }
        let value = UnsafeBufferPointer(rebasing: line[valueStart...])
        switch Field(name) {
        case .data:
            guard dataSize + value.count + 1 <= Self.maximumEventSize else {
                throw .eventTooLarge(limit: Self.maximumEventSize)
            }
            if hasData {
                data.append("\n")
                data.append(String(decoding: value, as: UTF8.self))
                dataSize += value.count + 1
            } else {
                data = String(decoding: value, as: UTF8.self)
                dataSize = value.count
                hasData = true
            }
        case .event:
            eventType = String(decoding: value, as: UTF8.self)
        case .id:
            // Sticky: the same id again (or each event's own) keeps the string it has.
            if !value.contains(0), !Self.isSame(idBuffer, value) {
                idBuffer = String(decoding: value, as: UTF8.self)
            }
        case .retry:
            if let milliseconds = Self.digits(value) {
                pendingRetry = .milliseconds(milliseconds)
                reconnectionTime = pendingRetry
            }
        case nil:
            break
        }
    }

    /// The fields the standard gives a meaning; other names are ignored.
    private enum Field {
        case data, event, id, retry

        @inline(__always)
        init?(_ name: UnsafeBufferPointer<UInt8>) {
            switch name.count {
            case 2 where name[0] == UInt8(ascii: "i") && name[1] == UInt8(ascii: "d"):
                self = .id
            case 4 where name[0] == UInt8(ascii: "d") && name[1] == UInt8(ascii: "a") && name[2] == UInt8(ascii: "t")
                && name[3] == UInt8(ascii: "a"):
                self = .data
            case 5 where name[0] == UInt8(ascii: "e") && name[1] == UInt8(ascii: "v") && name[2] == UInt8(ascii: "e")
                && name[3] == UInt8(ascii: "n") && name[4] == UInt8(ascii: "t"):
                self = .event
            case 5 where name[0] == UInt8(ascii: "r") && name[1] == UInt8(ascii: "e") && name[2] == UInt8(ascii: "t")
                && name[3] == UInt8(ascii: "r") && name[4] == UInt8(ascii: "y"):
                self = .retry
            default:
                return nil
            }
        }
    }

    /// A blank line: the id takes effect (even without data, as the standard's step 1 of
    /// dispatching says), and an event with data is handed on.
    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        defer {
            hasData = false
            dataSize = 0
            eventType = nil
        }
        lastEventID = idBuffer
        guard hasData else { return }
        var text = ""
        swap(&text, &data)  // moved into the event: the next event starts a new string
        events.append(ServerSentEvent(id: lastEventID.flatMap { $0.isEmpty ? nil : $0 },
                                      event: eventType.flatMap { $0.isEmpty ? nil : $0 },
                                      data: text, retry: pendingRetry,
                                      decoder: decoder, usesFastJSONDecoder: usesFastJSONDecoder))
        pendingRetry = nil
    }

    /// Whether `text` is exactly these bytes (compared as UTF-8 buffers).
    private static func isSame(_ text: String?, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard var text else { return false }
        return text.withUTF8 { $0.elementsEqual(bytes) }
    }

    /// The value as a base-ten integer when it is ASCII digits only (a huge value saturates).
    private static func digits(_ value: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !value.isEmpty else { return nil }
        var result: Int64 = 0
        for byte in value {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            result = overflow1 || overflow2 ? .max : sum
        }
        return result
    }

    // MARK: Writing events

    /// `events` as `text/event-stream` text that parses back to the same events: what mock
    /// mode answers ``MockResponse/events(_:eventDelay:)`` with.
    static func encode(_ events: [ServerSentEvent]) -> [Data] {
        var previousID: String?
        return events.map { event in
            defer { previousID = event.id }
            return encode(event, previousID: previousID)
        }
    }

    /// One event as its lines and the blank line that dispatches it.
    static func encode(_ event: ServerSentEvent, previousID: String? = nil) -> Data {
        var text = ""
        if event.id != previousID { text += "id: \(singleLine(event.id ?? ""))\n" }
        if let type = event.event { text += "event: \(singleLine(type))\n" }
        if let retry = event.retry {
            let (seconds, attoseconds) = retry.components
            let milliseconds = max(0, seconds).multipliedReportingOverflow(by: 1000)
            text += "retry: \(milliseconds.overflow ? Int64.max : milliseconds.partialValue + attoseconds / 1_000_000_000_000_000)\n"
        }
        var lines: [Substring] = []
        var rest = Substring(event.data)
        while let end = rest.firstIndex(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            lines.append(rest[..<end])
            rest = rest[rest.index(after: end)...]
        }
        lines.append(rest)
        for line in lines { text += "data: \(line)\n" }
        text += "\n"
        return Data(text.utf8)
    }

    /// The text with line ends replaced by spaces: a field value is one line.
    private static func singleLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
    }
}
