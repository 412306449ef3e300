import Foundation

/// A pure, incremental parser of a stream's body into items: what ``StreamItems`` runs.
protocol StreamItemParser {
    associatedtype Item
    /// Appends the items `chunk` completes.
    mutating func feed(_ chunk: UnsafeRawBufferPointer, into items: inout [Item]) throws(StreamParseFailure)
    /// The end of the body: appends what the last bytes complete, if anything.
    mutating func finish(into items: inout [Item]) throws(StreamParseFailure)
    /// The item as the log's preview shows it (before redaction).
    func preview(_ item: Item) -> String
}

/// The items of one iteration over a stream: chunks from the ``StreamIteration`` through a
/// parser, handed out one at a time. What every stream's iterator is made of.
struct StreamItems<Parser: StreamItemParser> {
    private let iteration: StreamIteration
    private var parser: Parser
    private var pending: [Parser.Item] = []
    private var index = 0
    /// A parse failure to throw once the items completed before it are handed out.
    private var failure: StreamParseFailure?

    init(_ body: StreamBody, parser: Parser) {
        iteration = StreamIteration(body: body)
        self.parser = parser
    }

    mutating func next(isolation: isolated (any Actor)?) async throws(NetworkError) -> Parser.Item? {
        while index >= pending.count {
            pending.removeAll(keepingCapacity: true)
            index = 0
            if let failure {
                self.failure = nil
                throw iteration.fail(Self.error(for: failure, of: iteration.body))
            }
            guard !iteration.done else { return nil }
            let chunk = try await iteration.next(isolation: isolation)
            do throws(StreamParseFailure) {
                if let chunk {
                    try chunk.withUnsafeBytes(typed: { (bytes) throws(StreamParseFailure) in try parser.feed(bytes, into: &pending) })
                } else {
                    try parser.finish(into: &pending)
                }
            } catch {
                // The items the chunk completed before the failure come first (an NDJSON line
                // that does not decode ends the loop after the values before it).
                failure = error
            }
            if !pending.isEmpty {
                iteration.body.note(items: pending.count,
                                    previews: iteration.collectsPreviews ? pending.map(parser.preview) : [])
            }
            if chunk == nil && pending.isEmpty && failure == nil { return nil }
        }
        defer { index += 1 }
        return pending[index]
    }

    /// The error a parse failure ends the stream with: a value that does not decode is
    /// `.serialization`; a body that breaks the limits is `.transport`, like a response over
    /// the size limit.
    private static func error(for failure: StreamParseFailure, of body: StreamBody) -> NetworkError {
        let context = NetworkError.Context(request: body.origin.description, reason: failure.reason)
        switch failure {
        case .undecodableLine: return .serialization(context)
        case .lineTooLong, .eventTooLarge: return .transport(context)
        }
    }
}

/// Chunks as they are: ``ByteStream``'s items.
struct ChunkParser: StreamItemParser {
    mutating func feed(_ chunk: UnsafeRawBufferPointer, into items: inout [Data]) throws(StreamParseFailure) {
        items.append(Data(chunk))
    }

    mutating func finish(into items: inout [Data]) throws(StreamParseFailure) {}

    func preview(_ item: Data) -> String { String(decoding: item.prefix(NetworkLog.previewLimit), as: UTF8.self) }
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

    func preview(_ item: String) -> String { item }
}

/// `text/event-stream` events: ``EventStream``'s items.
extension ServerSentEventParser: StreamItemParser {
    mutating func finish(into items: inout [ServerSentEvent]) throws(StreamParseFailure) {
        finish()
    }

    func preview(_ item: ServerSentEvent) -> String { item.data }
}
