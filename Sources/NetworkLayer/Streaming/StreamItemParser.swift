import Foundation

/// A pure, incremental parser of a stream's body into items: what ``StreamItems`` runs.
protocol StreamItemParser {
    associatedtype Item
    /// Appends the items `chunk` completes.
    mutating func feed(_ chunk: UnsafeRawBufferPointer, into items: inout [Item]) throws(StreamParseFailure)
    /// Appends the items a chunk as `Data` completes (``ChunkParser`` keeps it without a copy).
    mutating func feed(chunk: Data, into items: inout [Item]) throws(StreamParseFailure)
    /// The end of the body: appends what the last bytes complete, if anything.
    mutating func finish(into items: inout [Item]) throws(StreamParseFailure)
    /// Called once, before the first chunk, when the log will show previews. Default: nothing.
    mutating func keepPreviews()
    /// `items`, the batch the last chunk completed, as the log's preview shows them (unredacted:
    /// the log redacts them like a body). Called only after ``keepPreviews()``.
    mutating func previews(of items: [Item]) -> [String]
    /// Where a reconnection resumes from; `nil` (the default) for a body that never reconnects.
    var resumption: StreamResumption? { get }
    /// Starts over for the body of a reconnection, keeping what `resumption` says. Default: nothing.
    mutating func resume(from resumption: StreamResumption)
}

extension StreamItemParser {
    mutating func keepPreviews() {}

    var resumption: StreamResumption? { nil }

    mutating func resume(from resumption: StreamResumption) {}

    mutating func feed(chunk: Data, into items: inout [Item]) throws(StreamParseFailure) {
        try chunk.withUnsafeBytes(typed: { (bytes) throws(StreamParseFailure) in try feed(bytes, into: &items) })
    }
}

/// The items of one iteration over a stream: chunks from the ``StreamIteration`` through a
/// parser, handed out one at a time. A batch is handed out from this value alone, without the
/// stream's shared state; it is kept reversed so that `popLast` moves items out, not copies.
struct StreamItems<Parser: StreamItemParser> {
    private var iteration: StreamIteration
    /// Connects an event stream again when its body ends; `nil` for every other stream.
    private let reconnector: EventStreamReconnector?
    private var parser: Parser
    /// The items parsed and not handed out yet, the next one last.
    private var ready: [Parser.Item] = []
    /// Chunks taken and not parsed yet, the next one last: parsed a chunk at a time, so that the
    /// first items are handed out before the rest are parsed.
    private var unparsed: [Data] = []
    /// Where the parser appends the next chunk's items (empty between chunks, its capacity kept).
    private var parsed: [Parser.Item] = []
    /// A parse failure to throw once the items completed before it are handed out.
    private var failure: StreamParseFailure?
    /// How many more characters of previews the log can show (none when it shows no bodies).
    private var previewRoom: Int

    init(_ body: StreamBody, parser: Parser, reconnector: EventStreamReconnector? = nil) {
        iteration = StreamIteration(body: body)
        self.reconnector = reconnector
        self.parser = parser
        previewRoom = iteration.collectsPreviews ? NetworkLog.previewLimit : 0
        if previewRoom > 0 { self.parser.keepPreviews() }
    }

    /// The next item of the batch parsed already, if any: no suspension, no lock.
    @inline(__always)
    mutating func nextReady() -> Parser.Item? {
        ready.popLast()
    }

    /// The next item, reading and parsing chunks until one completes an item; `nil` at the end.
    mutating func next(isolation: isolated (any Actor)?) async throws(NetworkError) -> Parser.Item? {
        if let item = ready.popLast() { return item }
        return try await refill(isolation: isolation)
    }

    private mutating func refill(isolation: isolated (any Actor)?) async throws(NetworkError) -> Parser.Item? {
        while true {
            if let failure {
                self.failure = nil
                unparsed = []
                throw iteration.fail(failure.error(of: iteration.body))
            }
            var chunk = unparsed.popLast()
            if chunk == nil {
                guard !iteration.done else { return nil }
                let chunks: [Data]?
                do {
                    chunks = try await iteration.next(isolation: isolation)
                } catch {
                    guard let reconnector else { throw error }
                    try await reconnect(by: reconnector, after: error, from: parser.resumption, isolation: isolation)
                    continue
                }
                if let chunks {
                    unparsed.reserveCapacity(chunks.count)
                    for taken in chunks.reversed() { unparsed.append(taken) }
                    chunk = unparsed.popLast()
                }
            }
            // What a reconnection resumes from, taken before `finish` starts the parser over.
            let resumption = chunk == nil ? parser.resumption : nil
            do throws(StreamParseFailure) {
                if let chunk {
                    try parser.feed(chunk: chunk, into: &parsed)
                } else {
                    try parser.finish(into: &parsed)
                }
            } catch {
                // The items the chunk completed before the failure come first.
                failure = error
            }
            if !parsed.isEmpty {
                var previews: [String] = []
                if previewRoom > 0 {
                    previews = parser.previews(of: parsed)
                    for preview in previews { previewRoom -= preview.utf8.count + 1 }
                }
                iteration.body.note(items: parsed.count, previews: previews)
                // `ready` is empty here: the batch moves into it reversed (`reverse()` would copy each item).
                ready.reserveCapacity(parsed.count)
                while let item = parsed.popLast() { ready.append(item) }
                reconnector?.eventsArrived()
                return ready.popLast()
            }
            if chunk == nil && failure == nil {
                guard let reconnector else { return nil }
                try await reconnect(by: reconnector, after: nil, from: resumption, isolation: isolation)
            }
        }
    }

    /// Goes on with the body of a reconnection after the current body ended with `ending`
    /// (`nil`: its end), or ends the iteration: its error thrown, or `iteration` left done.
    private mutating func reconnect(by reconnector: EventStreamReconnector, after ending: NetworkError?,
                                    from resumption: StreamResumption?, isolation: isolated (any Actor)?) async throws(NetworkError) {
        let resumption = resumption ?? StreamResumption()
        // The event the body ended in is not dispatched (the standard discards it).
        try? parser.finish(into: &parsed)
        parsed.removeAll(keepingCapacity: true)
        guard let body = try await reconnector.reconnect(iteration.body, after: ending, from: resumption) else { return }
        parser.resume(from: resumption)
        iteration = StreamIteration(body: body)
    }
}

extension StreamItems: CustomReflectable {
    /// What `dump` of a stream's iterator shows: how many items wait, never the items, the parser's
    /// partial line or the text it keeps for the log's preview.
    var customMirror: Mirror { Mirror(self, children: ["itemsReady": ready.count], displayStyle: .struct) }
}

/// Chunks as they are: ``ByteStream``'s items.
struct ChunkParser: StreamItemParser {
    mutating func feed(_ chunk: UnsafeRawBufferPointer, into items: inout [Data]) throws(StreamParseFailure) {
        items.append(Data(chunk))
    }

    /// The chunk itself: the stream's buffer made it a `Data` already.
    mutating func feed(chunk: Data, into items: inout [Data]) throws(StreamParseFailure) {
        items.append(chunk)
    }

    mutating func finish(into items: inout [Data]) throws(StreamParseFailure) {}

    func previews(of items: [Data]) -> [String] {
        items.map { String(decoding: $0.prefix(NetworkLog.previewLimit), as: UTF8.self) }
    }
}

/// Lines (LF or CRLF), the last one without a terminator included: ``ByteStream/lines``.
struct TextLineParser: StreamItemParser {
    private var lines = LineSplitter(endings: .lineFeed)

    mutating func feed(_ chunk: UnsafeRawBufferPointer, into items: inout [String]) throws(StreamParseFailure) {
        try lines.feed(chunk) { line throws(StreamParseFailure) in items.append(String(decoding: line, as: UTF8.self)) }
    }

    mutating func finish(into items: inout [String]) throws(StreamParseFailure) {
        try lines.finish { line throws(StreamParseFailure) in items.append(String(decoding: line, as: UTF8.self)) }
    }

    func previews(of items: [String]) -> [String] { items }
}

/// `text/event-stream` events: ``EventStream``'s items.
extension ServerSentEventParser: StreamItemParser {
    mutating func finish(into items: inout [ServerSentEvent]) throws(StreamParseFailure) {
        finish()
    }

    func previews(of items: [ServerSentEvent]) -> [String] { items.map(\.data) }
}
