import Foundation

/// Parses a `text/event-stream` body into ``ServerSentEvent``s as its chunks arrive: the
/// ``ServerSentEventScanner``'s events, each one's data decoded once from the bytes it arrived in.
/// Pure and incremental (no I/O, no clock): any chunking of the same bytes gives the same events.
struct ServerSentEventParser {
    private var scanner: ServerSentEventScanner
    private var strings = Strings()

    /// - Parameters:
    ///   - decoder: the decoder events carry, for ``ServerSentEvent/decode(_:using:)``.
    ///   - usesFastJSONDecoder: whether FastJSON may decode the events' data.
    init(decoder: JSONDecoder? = nil, usesFastJSONDecoder: Bool = true) {
        scanner = ServerSentEventScanner(decoder: decoder, usesFastJSONDecoder: usesFastJSONDecoder)
    }

    /// Makes events of views, the id's and type's strings only when they change.
    private struct Strings {
        /// The scanner's count of id changes `id` was made at; none yet, so the first event makes it.
        var idChanges = -1
        var id: String?
        var type: String?

        mutating func event(_ view: borrowing ServerSentEvent.View) -> ServerSentEvent {
            if view.idChanges != idChanges {
                idChanges = view.idChanges
                id = view.idString
            }
            if view.typeBytes.isEmpty {
                type = nil
            } else if !(type.map { view.isEvent($0) } ?? false) {
                type = view.eventString
            }
            return ServerSentEvent(id: id, event: type, data: view.dataString, retry: view.retry,
                                   decoder: view.decoder, usesFastJSONDecoder: view.usesFastJSONDecoder)
        }
    }

    mutating func feed(_ chunk: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) throws(StreamParseFailure) {
        // The strings are moved out while the scanner calls back (exclusive access).
        var strings = Strings()
        swap(&strings, &self.strings)
        defer { swap(&strings, &self.strings) }
        try scanner.scan(chunk) { view in
            events.append(strings.event(view))
            return true
        }
    }

    mutating func feed(_ chunk: Data, into events: inout [ServerSentEvent]) throws(StreamParseFailure) {
        try chunk.withUnsafeBytes(typed: { (bytes) throws(StreamParseFailure) in try feed(bytes, into: &events) })
    }

    /// The end of the body: an event it ended in is discarded, as the standard says.
    mutating func finish() {
        scanner.finish()
        strings = Strings()
    }

    /// What a reconnection resumes from: the id of the last event dispatched (not of one the body
    /// ended in) and the reconnection time so far.
    var resumption: StreamResumption? { scanner.resumption }

    /// Starts the body of a reconnection, keeping the last event ID and reconnection time.
    mutating func resume(from resumption: StreamResumption) {
        scanner.resume(from: resumption)
        strings = Strings()
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
            // `components` traps beyond Int64.max s (`.seconds(1e20)`): such a wait is written as the longest.
            var milliseconds: Int64 = retry <= .zero ? 0 : .max
            if retry > .zero, retry < .seconds(Int64.max / 1000) {
                let (seconds, attoseconds) = retry.components
                milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
            }
            text += "retry: \(milliseconds)\n"
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
