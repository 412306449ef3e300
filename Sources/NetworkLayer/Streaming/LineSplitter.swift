import Foundation

/// Cuts a body that arrives in chunks into lines, whatever the chunk boundaries: a line, or the
/// CR and LF of one line end, split across two chunks gives the same lines as one chunk would.
///
/// Pure and incremental (no I/O, no clock), so that random chunkings of one input can be checked
/// to give the same lines. A line is handed to `body` without its terminator, as bytes that are
/// valid only during the call.
struct LineSplitter {
    /// Which bytes end a line.
    enum Endings {
        /// LF, or CRLF (the CR is dropped): ``ByteStream/lines`` and NDJSON.
        case lineFeed
        /// CR, LF or CRLF, as `text/event-stream` defines them: a CR ends the line at once, and
        /// an LF right after it (even in the next chunk) belongs to the same line end.
        case any
    }

    let endings: Endings
    /// The longest line accepted: 16 MB. A server sending an endless line must not grow memory
    /// without bound.
    let maximumLineLength: Int
    /// The start of a line whose end has not arrived yet.
    private var partial: [UInt8] = []
    /// The previous chunk ended with a CR (`.any`): an LF starting this one is the rest of that line end.
    private var skipsLineFeed = false

    /// A splitter to swap in while the real one is in use (it allocates nothing).
    static var placeholder: LineSplitter { LineSplitter(endings: .lineFeed) }

    init(endings: Endings, maximumLineLength: Int = 16 << 20) {
        self.endings = endings
        self.maximumLineLength = maximumLineLength
    }

    /// Whether bytes of an unfinished line are waiting for its end.
    var hasPartialLine: Bool { !partial.isEmpty }

    /// Feeds one chunk; calls `body` with every line it completes, in order.
    mutating func feed(_ chunk: UnsafeRawBufferPointer,
                       _ body: (UnsafeBufferPointer<UInt8>) throws(StreamParseFailure) -> Void) throws(StreamParseFailure) {
        let bytes = chunk.bindMemory(to: UInt8.self)
        var start = 0
        var index = 0
        let count = bytes.count
        if skipsLineFeed, count > 0 {
            skipsLineFeed = false
            if bytes[0] == 0x0A { start = 1; index = 1 }
        }
        while index < count {
            let byte = bytes[index]
            if byte == 0x0A || (byte == 0x0D && endings == .any) {
                try emit(UnsafeBufferPointer(rebasing: bytes[start..<index]), body)
                if byte == 0x0D {
                    if index + 1 < count {
                        if bytes[index + 1] == 0x0A { index += 1 }
                    } else {
                        skipsLineFeed = true
                    }
                }
                index += 1
                start = index
                continue
            }
            index += 1
        }
        if start < count {
            guard partial.count + (count - start) <= maximumLineLength else {
                throw .lineTooLong(limit: maximumLineLength)
            }
            partial.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<count]))
        }
    }

    /// The end of the body: the last line if it had no terminator (only `.lineFeed` hands it on;
    /// an event stream discards what its last line end did not finish). Resets the splitter.
    mutating func finish(_ body: (UnsafeBufferPointer<UInt8>) throws(StreamParseFailure) -> Void) throws(StreamParseFailure) {
        defer { partial = []; skipsLineFeed = false }
        guard endings == .lineFeed, !partial.isEmpty else { return }
        var line = partial
        if line.last == 0x0D { line.removeLast() }
        try line.withUnsafeBufferPointer { (buffer) throws(StreamParseFailure) in try body(buffer) }
    }

    /// One complete line: `partial` + `tail`, without the CR of a CRLF.
    private mutating func emit(_ tail: UnsafeBufferPointer<UInt8>,
                               _ body: (UnsafeBufferPointer<UInt8>) throws(StreamParseFailure) -> Void) throws(StreamParseFailure) {
        if partial.isEmpty {
            var line = tail
            if endings == .lineFeed, let last = line.last, last == 0x0D { line = UnsafeBufferPointer(rebasing: line.dropLast()) }
            try body(line)
            return
        }
        guard partial.count + tail.count <= maximumLineLength else { throw .lineTooLong(limit: maximumLineLength) }
        partial.append(contentsOf: tail)
        if endings == .lineFeed, partial.last == 0x0D { partial.removeLast() }
        defer { partial.removeAll(keepingCapacity: partial.capacity <= 64 << 10) }
        try partial.withUnsafeBufferPointer { (buffer) throws(StreamParseFailure) in try body(buffer) }
    }
}
