import Foundation

/// Cuts a `text/event-stream` body into events by the WHATWG rules ("Interpreting an event
/// stream"), whatever the chunking, and lends each as a ``ServerSentEvent/View`` of the bytes: no
/// string, and once its buffers have grown, no allocation per event. Both readers of
/// ``EventStream`` run on it. Pure and incremental (no I/O, no clock).
///
/// Its bytes live in ``ScannedBytes``, at addresses that stay put between events; copies share
/// them, so a scanner is never copied while in use (it is reset by assigning a new one).
struct ServerSentEventScanner {
    /// The most data one event may carry before its blank line: 16 MB.
    static let maximumEventSize = 16 << 20

    /// The longest line accepted: 16 MB, so that an endless line cannot grow memory without bound.
    static let maximumLineLength = 16 << 20
    /// The start of a line whose end has not arrived yet.
    private let partial = ScannedBytes()
    /// The previous chunk ended with a CR: an LF starting this one is the rest of that line end.
    private var skipsLineFeed = false
    /// The first bytes of the body while they may still be a byte order mark; `nil` once decided.
    private var start: [UInt8]? = []
    /// The event's data, when it is one `data:` line inside the chunk being scanned: a view, no copy.
    private var dataInChunk: UnsafeRawBufferPointer?
    /// The event's data otherwise (lines joined with LF, or a line that spanned chunks).
    private let data = ScannedBytes()
    /// The size of the data so far as the server sent it (lines and the LFs between them), for the limit.
    private var dataSize = 0
    private var hasData = false
    /// The `event:` value; empty for the default type.
    private let eventType = ScannedBytes()
    /// The standard's last event ID buffer: the latest `id:` line's value, which the next event carries.
    private let idBuffer = ScannedBytes()
    private var hasIDBuffer = false
    /// An `id:` line changed the buffer since the last blank line.
    private var idBufferChanged = false
    /// The standard's last event ID string: the buffer as of the last blank line, the only id a
    /// reconnection may send (one of an event cut before its blank line never reaches it).
    private let lastEventID = ScannedBytes()
    private var hasLastEventID = false
    /// Counts the changes of the last event ID string (a reader making strings makes the id's once per change).
    private var lastEventIDChanges = 0
    private var pendingRetry: Duration?
    /// The last valid `retry:` of the stream, kept across reconnections like the last event ID.
    private var reconnectionTime: Duration?
    private(set) var dispatched = 0
    /// The reader stopped: no more events are handed out.
    private var stopped = false
    /// The decoder the views carry, held here: they do not retain it.
    let decoder: JSONDecoder?
    let usesFastJSONDecoder: Bool
    /// What the view of the event being handed out points to.
    private var fields = ServerSentEvent.View.Fields()

    init(decoder: JSONDecoder? = nil, usesFastJSONDecoder: Bool = true) {
        self.decoder = decoder
        self.usesFastJSONDecoder = usesFastJSONDecoder
        fields.decoder = decoder.map { Unmanaged.passUnretained($0) }
        fields.usesFastJSONDecoder = usesFastJSONDecoder
    }

    /// Scans one chunk, calling `body` with each event it completes, in order. `body` answers
    /// `false` to stop: no further event is handed out, from this chunk or a later one.
    mutating func scan(_ chunk: UnsafeRawBufferPointer,
                       _ body: (borrowing ServerSentEvent.View) -> Bool) throws(StreamParseFailure) {
        guard var head = start else { return try scanLines(chunk, body) }
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
        if head != bom {
            try head.withUnsafeBytes(typed: { (bytes) throws(StreamParseFailure) in try scanLines(bytes, body) })
        }
        try scanLines(UnsafeRawBufferPointer(rebasing: chunk[taken...]), body)
    }

    /// The end of the body: an event (or line) it ended in is discarded, as the standard says.
    mutating func finish() {
        self = ServerSentEventScanner(decoder: decoder, usesFastJSONDecoder: usesFastJSONDecoder)
    }

    /// What a reconnection resumes from: the id of the last event dispatched (not of one the body
    /// ended in) and the reconnection time so far.
    var resumption: StreamResumption {
        StreamResumption(lastEventID: hasLastEventID ? String(decoding: lastEventID.bytes, as: UTF8.self) : nil,
                         retry: reconnectionTime)
    }

    /// Starts the body of a reconnection, keeping the last event ID and reconnection time.
    mutating func resume(from resumption: StreamResumption) {
        self = ServerSentEventScanner(decoder: decoder, usesFastJSONDecoder: usesFastJSONDecoder)
        if var id = resumption.lastEventID {
            id.withUTF8 { id in
                lastEventID.set(UnsafeRawBufferPointer(id))
                idBuffer.set(UnsafeRawBufferPointer(id))
            }
            hasLastEventID = true
            hasIDBuffer = true
        }
        reconnectionTime = resumption.retry
    }

    // Lines end at LF, CR or CRLF (a CR's LF may start the next chunk); one that spanned chunks is
    // gathered in `partial`. Pointers and no call per line: a line is most of what an event costs.
    private mutating func scanLines(_ bytes: UnsafeRawBufferPointer,
                                    _ body: (borrowing ServerSentEvent.View) -> Bool) throws(StreamParseFailure) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else { return }
        let count = bytes.count
        var start = 0
        if skipsLineFeed {
            skipsLineFeed = false
            if base[0] == 0x0A { start = 1 }
        }
        // The next LF and CR at or after `start` (`count`: none), each searched again only once passed.
        var nextLineFeed = -1
        var nextReturn = -1
        while start < count {
            if nextLineFeed < start { nextLineFeed = Self.find(0x0A, in: base, from: start, to: count) }
            if nextReturn < start { nextReturn = Self.find(0x0D, in: base, from: start, to: count) }
            let end = min(nextLineFeed, nextReturn)
            guard end < count else { break }
            if partial.isEmpty {
                try process(base + start, end - start, inChunk: true, body)
                // A blank line right after (LF LF, most events' end): dispatched here, without a search.
                if end == nextLineFeed, end + 1 < count, base[end + 1] == 0x0A {
                    dispatch(body)
                    start = end + 2
                    continue
                }
            } else {
                guard partial.count + (end - start) <= Self.maximumLineLength else { throw .lineTooLong(limit: Self.maximumLineLength) }
                partial.append(UnsafeRawBufferPointer(start: base + start, count: end - start))
                let line = partial.bytes
                try process(line.baseAddress!.assumingMemoryBound(to: UInt8.self), line.count, inChunk: false, body)
                partial.clear(keepingUpTo: 64 << 10)
            }
            start = end + 1
            if end == nextReturn {
                if start < count {
                    if base[start] == 0x0A { start += 1 }
                } else {
                    skipsLineFeed = true
                }
            }
        }
        if start < count {
            guard partial.count + (count - start) <= Self.maximumLineLength else { throw .lineTooLong(limit: Self.maximumLineLength) }
            partial.append(UnsafeRawBufferPointer(start: base + start, count: count - start))
        }
        // The chunk goes after this call: data viewed in it is kept as a copy.
        if let view = dataInChunk {
            data.append(view)
            dataInChunk = nil
        }
    }

    @inline(__always)
    private static func find(_ byte: UInt8, in base: UnsafePointer<UInt8>, from: Int, to end: Int) -> Int {
        guard from < end, let found = memchr(base + from, Int32(byte), end - from) else { return end }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always)
    private mutating func process(_ line: UnsafePointer<UInt8>, _ length: Int, inChunk: Bool,
                                  _ body: (borrowing ServerSentEvent.View) -> Bool) throws(StreamParseFailure) {
        guard length > 0 else { return dispatch(body) }
        let field: Field?
        var valueStart: Int
        // `data:` first: most lines are.
        if length >= 5, line[0] == UInt8(ascii: "d"), line[1] == UInt8(ascii: "a"), line[2] == UInt8(ascii: "t"),
           line[3] == UInt8(ascii: "a"), line[4] == UInt8(ascii: ":") {
            field = .data
            valueStart = 5
        } else {
            if line[0] == UInt8(ascii: ":") { return }  // a comment
            var colon = 0
            while colon < length, line[colon] != UInt8(ascii: ":") { colon += 1 }
            field = Field(UnsafeBufferPointer(start: line, count: colon))
            valueStart = colon < length ? colon + 1 : length
        }
        if valueStart < length, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = UnsafeRawBufferPointer(start: line + valueStart, count: length - valueStart)
        switch field {
        case .data:
            guard dataSize + value.count + 1 <= Self.maximumEventSize else {
                throw .eventTooLarge(limit: Self.maximumEventSize)
            }
            if hasData {
                if let view = dataInChunk {
                    data.append(view)
                    dataInChunk = nil
                }
                data.appendLineFeed()
                data.append(value)
                dataSize += value.count + 1
            } else {
                if inChunk { dataInChunk = value } else { data.append(value) }
                dataSize = value.count
                hasData = true
            }
        case .event:
            eventType.set(value)
        case .id:
            // Sticky: the same id again (or each event's own) changes nothing.
            if memchr(line + valueStart, 0, value.count) == nil, !(hasIDBuffer && idBuffer.holds(value)) {
                idBuffer.set(value)
                hasIDBuffer = true
                idBufferChanged = true
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
    /// dispatching says), and an event with data is handed out.
    @inline(__always)
    private mutating func dispatch(_ body: (borrowing ServerSentEvent.View) -> Bool) {
        if idBufferChanged {
            idBufferChanged = false
            if hasLastEventID != hasIDBuffer || !lastEventID.holds(idBuffer.bytes) {
                lastEventID.set(idBuffer.bytes)
                hasLastEventID = hasIDBuffer
                lastEventIDChanges &+= 1
            }
        }
        if hasData, !stopped {
            fields.data = dataInChunk ?? data.bytes
            fields.type = eventType.bytes
            fields.id = lastEventID.bytes
            fields.retry = pendingRetry
            fields.idChanges = lastEventIDChanges
            pendingRetry = nil
            dispatched &+= 1
            stopped = !withUnsafePointer(to: &fields) { body(ServerSentEvent.View($0)) }
        }
        hasData = false
        dataSize = 0
        dataInChunk = nil
        // Kept for the next event unless one large event grew them.
        data.clear(keepingUpTo: 64 << 10)
        eventType.clear(keepingUpTo: 4 << 10)
    }

    /// The value as a base-ten integer when it is ASCII digits only (a huge value saturates).
    private static func digits(_ value: UnsafeRawBufferPointer) -> Int64? {
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
}

/// Bytes at an address that stays put until they are set again or grow: what a scanner keeps
/// between lines and lends to its views. Growth that finds no memory traps, as `Array`'s does;
/// the scanners bound every buffer (16 MB).
final class ScannedBytes {
    private var base: UnsafeMutableRawPointer?
    private var capacity = 0

    deinit { free(base) }

    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    func set(_ source: UnsafeRawBufferPointer) {
        count = 0
        append(source)
    }

    func append(_ source: UnsafeRawBufferPointer) {
        guard let from = source.baseAddress, !source.isEmpty else { return }
        reserve(count + source.count)
        (base! + count).copyMemory(from: from, byteCount: source.count)
        count += source.count
    }

    func appendLineFeed() {
        reserve(count + 1)
        base!.storeBytes(of: 0x0A, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Whether these bytes are exactly `other`.
    func holds(_ other: UnsafeRawBufferPointer) -> Bool {
        guard other.count == count else { return false }
        return count == 0 || memcmp(base!, other.baseAddress!, count) == 0
    }

    /// Empties the bytes, keeping their storage unless it grew past `limit`.
    func clear(keepingUpTo limit: Int) {
        count = 0
        if capacity > limit {
            free(base)
            base = nil
            capacity = 0
        }
    }

    private func reserve(_ wanted: Int) {
        guard wanted > capacity else { return }
        let grown = max(wanted, capacity * 2, 64)
        guard let moved = realloc(base, grown) else { fatalError("out of memory for \(grown) bytes of a stream's event") }
        base = moved
        capacity = grown
    }
}
