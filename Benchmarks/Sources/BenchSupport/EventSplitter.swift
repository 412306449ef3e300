/// The minimal server-sent-events splitter of the clients that have no SSE parser (AsyncHTTPClient),
/// written for the runner's fixture and said to be no more than that.
///
/// The body is cut into events at blank lines (`\n\n`), also when the two line ends arrive in two
/// chunks. In an event, `data:` lines (one space after the colon dropped) are joined with `\n` into
/// the event's `data` and `id:` is read; other lines (comments, `event:`, `retry:`) are skipped, and
/// an event without data is not dispatched. What it does not do, unlike NetworkLayer's
/// `ServerSentEventParser` (the WHATWG rules): CR or CRLF line ends, a leading BOM, sticky ids, an
/// id containing NUL, `retry` values, a field without a colon. Each dispatched event's data and id
/// become `String`s, as a `ServerSentEvent`'s do, so both sides do that work.
public struct EventSplitter {
    /// The bytes after the last complete event.
    private var pending: [UInt8] = []
    /// How far into `pending` a blank line has been looked for.
    private var scanned = 0

    public init() {}

    /// Adds one chunk of the body and hands every event it completes to `dispatch` (id, data).
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ dispatch: (String?, String) -> Void) {
        pending.append(contentsOf: chunk)
        let count = pending.count
        var eventStart = 0
        var index = max(scanned, 1)
        pending.withUnsafeBufferPointer { bytes in
            while index < count {
                if bytes[index] == 0x0A, bytes[index - 1] == 0x0A {
                    Self.parse(UnsafeBufferPointer(rebasing: bytes[eventStart..<index]), dispatch)
                    eventStart = index + 1
                    index = eventStart + 1
                } else {
                    index += 1
                }
            }
        }
        pending.removeFirst(eventStart)
        scanned = count - eventStart
    }

    /// One event's lines (each ending in `\n`): its data lines joined, its id, dispatched when it has data.
    private static func parse(_ event: UnsafeBufferPointer<UInt8>, _ dispatch: (String?, String) -> Void) {
        var data: [UInt8] = []
        var hasData = false
        var id: String?
        var lineStart = 0
        while lineStart < event.count {
            var lineEnd = lineStart
            while lineEnd < event.count, event[lineEnd] != 0x0A { lineEnd += 1 }
            let line = UnsafeBufferPointer(rebasing: event[lineStart..<lineEnd])
            if let value = Self.value(of: "data:", in: line) {
                if hasData { data.append(0x0A) }
                data.append(contentsOf: value)
                hasData = true
            } else if let value = Self.value(of: "id:", in: line) {
                id = String(decoding: value, as: UTF8.self)
            }
            lineStart = lineEnd + 1
        }
        if hasData { dispatch(id, String(decoding: data, as: UTF8.self)) }
    }

    /// The value of a `name:` line (one leading space dropped), or nil when the line is another field.
    private static func value(of name: StaticString, in line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        let prefix = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        guard line.count >= prefix.count, line.prefix(prefix.count).elementsEqual(prefix) else { return nil }
        var start = prefix.count
        if start < line.count, line[start] == 0x20 { start += 1 }
        return UnsafeBufferPointer(rebasing: line[start...])
    }
}
