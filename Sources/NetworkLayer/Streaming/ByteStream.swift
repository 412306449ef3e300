import Foundation

/// A response body read while it arrives, as `Data` chunks in arrival order.
///
/// ``NetworkManager/perform(_:isolation:)`` returns once the headers arrived and the status
/// passed validation; the body flows through the loop.
///
/// - **Backpressure**: about 1 MB is buffered ahead of the loop; beyond that the transfer pauses.
/// - **Ending**: leaving the loop early, cancelling the reading task, or dropping the stream
///   cancels the transfer and releases its connection. A stream is read once.
/// - **Failures**: a broken connection ends the loop with ``NetworkError/transport(_:)``; a server
///   silent longer than the request's `requestTimeout` with ``NetworkError/timeOut(_:)`` (the timeout
///   bounds the silence between two chunks, never the whole stream).
///
/// `Decodable` only so that it can be a `BaseRequest` response type: decoding one throws.
public struct ByteStream: AsyncSequence, Decodable, Sendable, StreamingResponse {
    public typealias Element = Data
    public typealias Failure = NetworkError

    /// The response's status, headers and metrics (its `body` is empty: the body is this stream).
    public let response: HTTPResponse
    let body: StreamBody

    static var streamKind: StreamKind { .bytes }

    package init(streaming response: HTTPResponse) {
        self.response = response.head
        body = response.streamBody
    }

    /// A `ByteStream` comes from a streamed response, never from JSON: this always throws.
    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription:
            "ByteStream is a streamed response type: make it the request's response type and perform the request"))
    }

    /// The body as lines of text: split at LF or CRLF, decoded as UTF-8 (an invalid sequence
    /// becomes U+FFFD), the last line included even without a line end. A line longer than
    /// 16 MB ends the loop with ``NetworkError/transport(_:)``.
    public var lines: Lines { Lines(body: body) }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(items: StreamItems(body, parser: ChunkParser()))
    }

    /// The whole body at once when all of it has arrived and nothing was read (a small answer
    /// whose end came with its head); the stream has then ended. `nil` while some is to come.
    package func takeArrivedBody() -> [Data]? {
        body.takeRest()
    }

    /// Iterates the chunks; see ``ByteStream``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Failure = NetworkError

        var items: StreamItems<ChunkParser>

        /// The next chunk, or `nil` at the end of the body.
        /// - Throws: the ``NetworkError`` that ended the body.
        @inlinable
        public mutating func next() async throws(NetworkError) -> Data? {
            if let item = nextParsed() { return item }
            return try await nextReading(isolation: nil)
        }

        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> Data? {
            if let item = nextParsed() { return item }
            return try await nextReading(isolation: actor)
        }


        @usableFromInline
        mutating func nextParsed() -> Data? {
            items.nextReady()
        }

        @usableFromInline
        mutating func nextReading(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> Data? {
            try await items.next(isolation: actor)
        }
    }

    /// The lines of a ``ByteStream``; see ``ByteStream/lines``.
    public struct Lines: AsyncSequence, Sendable {
        public typealias Element = String
        public typealias Failure = NetworkError

        let body: StreamBody

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(items: StreamItems(body, parser: TextLineParser()))
        }

        /// Iterates the lines; see ``ByteStream/lines``.
        public struct AsyncIterator: AsyncIteratorProtocol {
            public typealias Failure = NetworkError

            var items: StreamItems<TextLineParser>

            /// The next line, or `nil` at the end of the body.
            /// - Throws: the ``NetworkError`` that ended the body.
            @inlinable
            public mutating func next() async throws(NetworkError) -> String? {
                if let item = nextParsed() { return item }
                return try await nextReading(isolation: nil)
            }

            @inlinable
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> String? {
                if let item = nextParsed() { return item }
                return try await nextReading(isolation: actor)
            }


            @usableFromInline
            mutating func nextParsed() -> String? {
                items.nextReady()
            }

            @usableFromInline
            mutating func nextReading(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> String? {
                try await items.next(isolation: actor)
            }
        }
    }
}
