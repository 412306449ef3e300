import Foundation

/// Cuts a body that arrives in chunks into lines, whatever the chunk boundaries. Pure and
/// incremental: a line is handed to `body` without its terminator, as bytes valid only during the call.
struct LineSplitter {
    enum Endings {
        /// LF, or CRLF (the CR is dropped): ``ByteStream/lines`` and NDJSON.
        case lineFeed
        /// CR, LF or CRLF, as `text/event-stream` defines them: a CR ends the line at once, and
        /// an LF right after it (even in the next chunk) belongs to the same line end.
        case any
    }

    let endings: Endings
    /// The longest line accepted: 16 MB, so that an endless line cannot grow memory without bound.
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

    var hasPartialLine: Bool { !partial.isEmpty }

    /// Feeds one chunk; calls `body` with every line it completes, in order (inlined with `body`).
    @inline(__always)
    mutating func feed(_ chunk: UnsafeRawBufferPointer,
                       _ body: (UnsafeBufferPointer<UInt8>) throws(StreamParseFailure) -> Void) throws(StreamParseFailure) {
        let bytes = chunk.bindMemory(to: UInt8.self)
        let count = bytes.count
        guard let base = bytes.baseAddress, count > 0 else { return }
        var start = 0
        if skipsLineFeed {
            skipsLineFeed = false
            if bytes[0] == 0x0A { start = 1 }
        }
        func find(_ byte: UInt8, from: Int) -> Int {
            guard from < count, let found = memchr(base + from, Int32(byte), count - from) else { return count }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        var nextLineFeed = -1
        // Only `.any` ends a line at a lone CR; `.lineFeed` drops the CR of a CRLF in `emit`.
        var nextReturn = endings == .any ? -1 : count
        while start < count {
            if nextLineFeed < start { nextLineFeed = find(0x0A, from: start) }
            if nextReturn < start { nextReturn = find(0x0D, from: start) }
            let end = min(nextLineFeed, nextReturn)
            guard end < count else { break }
            try emit(UnsafeBufferPointer(rebasing: bytes[start..<end]), body)
            start = end + 1
            if end == nextReturn {
                // A CR: an LF right after it (even in the next chunk) belongs to the same line end.
                if start < count {
                    if bytes[start] == 0x0A { start += 1 }
                } else {
                    skipsLineFeed = true
                }
            }
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

    @inline(__always)
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
