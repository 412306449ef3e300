import Foundation

/// An NDJSON (JSON Lines) response read while it arrives: one decoded value per line.
///
/// Blank lines are skipped; each line is decoded with the request's `jsonDecoder`, else the
/// provider's. A line that does not decode ends the loop with ``NetworkError/serialization(_:)``
/// naming its line number (1-based), never its content. Otherwise it works as ``ByteStream``.
///
/// `Decodable` only so that it can be a `BaseRequest` response type: decoding one throws.
public struct JSONLines<Element: Decodable & Sendable>: AsyncSequence, Decodable, Sendable, StreamingResponse {
    public typealias Failure = NetworkError

    /// The response's status, headers and metrics (its `body` is empty: the body is this stream).
    public let response: HTTPResponse
    let body: StreamBody

    static var streamKind: StreamKind { .jsonLines }

    init(streaming response: HTTPResponse) {
        self.response = response.head
        body = response.streamBody
    }

    /// A `JSONLines` comes from a streamed response, never from JSON: this always throws.
    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription:
            "JSONLines is a streamed response type: make it the request's response type and perform the request"))
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(items: StreamItems(body, parser: JSONLineParser(decoder: response.expectations.decoder,
                                                                    usesFastJSONDecoder: response.expectations.usesFastJSONDecoder)))
    }

    /// Iterates the decoded values; see ``JSONLines``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Failure = NetworkError

        var items: StreamItems<JSONLineParser<Element>>

        /// The next value, or `nil` at the end of the body.
        /// - Throws: the ``NetworkError`` that ended the body, or ``NetworkError/serialization(_:)``
        ///   for a line that does not decode.
        @inlinable
        public mutating func next() async throws(NetworkError) -> Element? {
            if let item = nextParsed() { return item }
            return try await nextReading(isolation: nil)
        }

        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> Element? {
            if let item = nextParsed() { return item }
            return try await nextReading(isolation: actor)
        }


        @usableFromInline
        mutating func nextParsed() -> Element? {
            items.nextReady()
        }

        @usableFromInline
        mutating func nextReading(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> Element? {
            try await items.next(isolation: actor)
        }
    }
}

/// NDJSON: a value per line, blank lines skipped, line numbers counted for errors.
struct JSONLineParser<Element: Decodable>: StreamItemParser {
    private var lines = LineSplitter(endings: .lineFeed)
    private var lineNumber = 0
    let decoder: JSONDecoder
    /// Whether FastJSON may decode the lines: the request's manager and provider choice.
    let usesFastJSONDecoder: Bool
    /// The lines decoded since the last batch was previewed (`nil` when the log keeps no previews):
    /// the log shows what arrived, as the value's type may not be `Encodable`.
    private var keptLines: [String]?
    /// Bytes of lines kept so far: once they fill a preview, no more are kept.
    private var keptBytes = 0

    init(decoder: JSONDecoder, usesFastJSONDecoder: Bool = true) {
        self.decoder = decoder
        self.usesFastJSONDecoder = usesFastJSONDecoder
    }

    mutating func feed(_ chunk: UnsafeRawBufferPointer, into items: inout [Element]) throws(StreamParseFailure) {
        var splitter = LineSplitter.placeholder
        swap(&splitter, &lines)
        defer { swap(&splitter, &lines) }
        try splitter.feed(chunk) { (line) throws(StreamParseFailure) in try decode(line, into: &items) }
    }

    mutating func finish(into items: inout [Element]) throws(StreamParseFailure) {
        var splitter = LineSplitter.placeholder
        swap(&splitter, &lines)
        defer { swap(&splitter, &lines) }
        try splitter.finish { (line) throws(StreamParseFailure) in try decode(line, into: &items) }
    }

    private mutating func decode(_ line: UnsafeBufferPointer<UInt8>, into items: inout [Element]) throws(StreamParseFailure) {
        lineNumber += 1
        guard line.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0D) }) else { return }
        do {
            items.append(try JSONBodyDecoding.decode(Element.self, from: Data(line), using: decoder,
                                                     usesFastJSONDecoder: usesFastJSONDecoder))
        } catch {
            throw .undecodableLine(line: lineNumber, type: "\(Element.self)", reason: HTTPResponse.describe(error))
        }
        // Only a line that decoded: an undecodable one is never shown, as its error never quotes it.
        if keptLines != nil, keptBytes < NetworkLog.previewLimit {
            let text = NetworkLog.previewableText(line)
            keptBytes += text.utf8.count + 1
            keptLines?.append(text)
        }
    }

    mutating func keepPreviews() {
        keptLines = []
    }

    /// The lines `items` were decoded from, as they arrived.
    mutating func previews(of items: [Element]) -> [String] {
        defer { if keptLines != nil { keptLines = [] } }
        return keptLines ?? []
    }
}
