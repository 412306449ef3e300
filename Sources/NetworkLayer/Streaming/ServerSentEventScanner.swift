import Foundation

/// Cuts a `text/event-stream` body that arrives in chunks into events by the WHATWG HTML standard's
/// rules ("Interpreting an event stream": BOM, CR/LF/CRLF line ends across chunk boundaries, the
/// last event ID buffer and string, `retry:`), and hands each event out as a
/// ``ServerSentEvent/View`` of the bytes: no string, and once its buffers have grown, no
/// allocation per event. Both readers of ``EventStream`` run on it: the borrowing one hands the
/// views on; ``ServerSentEventParser`` makes ``ServerSentEvent``s of them.
///
/// Pure and incremental (no I/O, no clock): any chunking of the same bytes gives the same events.
struct ServerSentEventScanner {
    /// The most data one event may carry before its blank line: 16 MB.
    static let maximumEventSize = 16 << 20

    private var lines = LineSplitter(endings: .any)
    /// The first bytes of the body while they may still be a byte order mark; `nil` once decided.
    private var start: [UInt8]? = []
    /// The event's data, when it is one `data:` line inside the chunk being scanned: a view, no copy.
    private var dataInChunk: UnsafeRawBufferPointer?
    /// The event's data otherwise (lines joined with LF, or a line that spanned chunks). Its
    /// capacity is kept between events, so it stops allocating once it has grown.
    private var data: [UInt8] = []
    /// The size of the data so far as the server sent it (lines and the LFs between them), for the limit.
    private var dataSize = 0
    private var hasData = false
    /// The `event:` value; empty for the default type.
    private var eventType: [UInt8] = []
    /// The standard's last event ID buffer: the latest `id:` line's value, which the next event carries.
    private var idBuffer: [UInt8] = []
    private var hasIDBuffer = false
    /// The standard's last event ID string: the buffer as of the last blank line, and the only id a
    /// reconnection may send. An `id:` of an event cut before its blank line never reaches it, or
    /// the server would resume after an event the reader never got.
    private var lastEventID: [UInt8] = []
    private var hasLastEventID = false
    /// Counts the changes of the last event ID string: a reader that makes strings makes the id's
    /// once per change, not once per event.
    private var lastEventIDChanges = 0
    private var pendingRetry: Duration?
    /// The last valid `retry:` of the stream, kept across reconnections like the last event ID.
    private var reconnectionTime: Duration?
    /// The reader stopped: no more events are handed out.
    private var stopped = false
    /// The decoder the views carry, for ``ServerSentEvent/View/decode(_:using:)``.
    let decoder: JSONDecoder?
    /// Whether FastJSON may decode the events' data: the request's manager and provider choice.
    let usesFastJSONDecoder: Bool

    init(decoder: JSONDecoder? = nil, usesFastJSONDecoder: Bool = true) {
        self.decoder = decoder
        self.usesFastJSONDecoder = usesFastJSONDecoder
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

    /// The end of the body: an event still waiting for its blank line is discarded, as the
    /// standard says. The scanner is ready for a new body afterwards.
    mutating func finish() {
        // A body that was only part of a BOM has no lines; a line without its end is dropped.
        try? lines.finish { _ throws(StreamParseFailure) in }
        self = ServerSentEventScanner(decoder: decoder, usesFastJSONDecoder: usesFastJSONDecoder)
    }

    /// What a reconnection resumes from: the id of the last event dispatched (not of one the body
    /// ended in) and the reconnection time so far.
    var resumption: StreamResumption {
        StreamResumption(lastEventID: hasLastEventID ? String(decoding: lastEventID, as: UTF8.self) : nil,
                         retry: reconnectionTime)
    }

    /// Starts the body of a reconnection, keeping the last event ID and reconnection time.
    mutating func resume(from resumption: StreamResumption) {
        self = ServerSentEventScanner(decoder: decoder, usesFastJSONDecoder: usesFastJSONDecoder)
        if let id = resumption.lastEventID {
            lastEventID = Array(id.utf8)
            idBuffer = lastEventID
            hasLastEventID = true
            hasIDBuffer = true
        }
        reconnectionTime = resumption.retry
    }

    private mutating func scanLines(_ bytes: UnsafeRawBufferPointer,
                                    _ body: (borrowing ServerSentEvent.View) -> Bool) throws(StreamParseFailure) {
        // A line inside these bytes may be viewed while they are scanned; the splitter's own copy
        // of a line that spanned chunks is reused for the next one, so it is copied.
        let low = UInt(bitPattern: bytes.baseAddress)
        let high = low + UInt(bytes.count)
        // The splitter is moved out while it calls back into this scanner (exclusive access).
        var splitter = LineSplitter.placeholder
        swap(&splitter, &lines)
        defer { swap(&splitter, &lines) }
        try splitter.feed(bytes) { (line) throws(StreamParseFailure) in
            let address = UInt(bitPattern: line.baseAddress)
            try process(line, inChunk: address >= low && address < high, body)
        }
        // The chunk goes after this call: data viewed in it is kept as a copy.
        if let view = dataInChunk {
            data.append(contentsOf: view)
            dataInChunk = nil
        }
    }

    @inline(__always)
    private mutating func process(_ line: UnsafeBufferPointer<UInt8>, inChunk: Bool,
                                  _ body: (borrowing ServerSentEvent.View) -> Bool) throws(StreamParseFailure) {
        guard let first = line.first else { return dispatch(body) }
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
                if let view = dataInChunk {
                    data.append(contentsOf: view)
                    dataInChunk = nil
                }
                data.append(0x0A)
                data.append(contentsOf: value)
                dataSize += value.count + 1
            } else {
                if inChunk { dataInChunk = UnsafeRawBufferPointer(value) } else { data.append(contentsOf: value) }
                dataSize = value.count
                hasData = true
            }
        case .event:
            eventType.removeAll(keepingCapacity: true)
            eventType.append(contentsOf: value)
        case .id:
            // Sticky: the same id again (or each event's own) changes nothing.
            if !value.contains(0), !(hasIDBuffer && idBuffer.elementsEqual(value)) {
                idBuffer.removeAll(keepingCapacity: true)
                idBuffer.append(contentsOf: value)
                hasIDBuffer = true
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
    private mutating func dispatch(_ body: (borrowing ServerSentEvent.View) -> Bool) {
        if hasLastEventID != hasIDBuffer || lastEventID != idBuffer {
            lastEventID.removeAll(keepingCapacity: true)
            lastEventID.append(contentsOf: idBuffer)
            hasLastEventID = hasIDBuffer
            lastEventIDChanges &+= 1
        }
        if hasData, !stopped {
            let retry = pendingRetry
            pendingRetry = nil
            let carriesOn = data.withUnsafeBytes { copied in
                eventType.withUnsafeBytes { type in
                    lastEventID.withUnsafeBytes { id in
                        body(ServerSentEvent.View(data: dataInChunk ?? copied, event: type, id: id, retry: retry,
                                                  idChanges: lastEventIDChanges, decoder: decoder,
                                                  usesFastJSONDecoder: usesFastJSONDecoder))
                    }
                }
            }
            stopped = !carriesOn
        }
        hasData = false
        dataSize = 0
        dataInChunk = nil
        // Kept for the next event unless one large event grew them.
        data.removeAll(keepingCapacity: data.capacity <= 64 << 10)
        if !eventType.isEmpty { eventType.removeAll(keepingCapacity: eventType.capacity <= 4 << 10) }
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
}
