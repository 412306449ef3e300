import Foundation

/// A `text/event-stream` response (server-sent events) read while it arrives, as
/// ``ServerSentEvent``s, parsed by the WHATWG rules (see ``ServerSentEvent``). Backpressure,
/// cancellation, timeouts and failures work as for ``ByteStream``; an event larger than 16 MB
/// ends the loop with ``NetworkError/transport(_:)``.
///
/// `Decodable` only so that it can be a `BaseRequest` response type: decoding one throws.
public struct EventStream: AsyncSequence, Decodable, Sendable, StreamingResponse {
    public typealias Element = ServerSentEvent
    public typealias Failure = NetworkError

    /// The response's status, headers and metrics (its `body` is empty: the body is this stream).
    public let response: HTTPResponse
    let body: StreamBody

    static var streamKind: StreamKind { .events }

    init(streaming response: HTTPResponse) {
        self.response = response.head
        body = response.streamBody
    }

    /// An `EventStream` comes from a streamed response, never from JSON: this always throws.
    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription:
            "EventStream is a streamed response type: make it the request's response type and perform the request"))
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(items: StreamItems(body, parser: ServerSentEventParser(decoder: response.expectations.decoder,
                                                                           usesFastJSONDecoder: response.expectations.usesFastJSONDecoder),
                                         reconnector: EventStreamReconnector(body, of: response)))
    }

    /// Iterates the events; see ``EventStream``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Failure = NetworkError

        var items: StreamItems<ServerSentEventParser>

        /// The next event, or `nil` at the end of the body.
        /// - Throws: the ``NetworkError`` that ended the body.
        @inlinable
        public mutating func next() async throws(NetworkError) -> ServerSentEvent? {
            if let event = nextParsed() { return event }
            return try await nextReading(isolation: nil)
        }

        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> ServerSentEvent? {
            if let event = nextParsed() { return event }
            return try await nextReading(isolation: actor)
        }

        // `next` is inlined into the caller's loop, so that an event already parsed (most are: a chunk
        // holds hundreds) is a synchronous call away; only reading the next chunk is an async call.

        @usableFromInline
        mutating func nextParsed() -> ServerSentEvent? {
            items.nextReady()
        }

        @usableFromInline
        mutating func nextReading(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> ServerSentEvent? {
            try await items.next(isolation: actor)
        }
    }
}
