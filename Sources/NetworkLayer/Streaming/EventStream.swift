import Foundation

/// A `text/event-stream` response (server-sent events) read while it arrives, as
/// ``ServerSentEvent``s: the shape of streaming LLM APIs, event feeds and live updates.
///
/// ```swift
/// final class ChatCompletionStream: BaseRequest<EventStream> {
///     init(prompt: String) {
///         super.init(serviceProvider: ChatProvider(), endpoint: "/v1/chat/completions")
///         httpMethod = .post
///         params = ["prompt": prompt, "stream": true]
///         mockedResponseFilename = "ChatCompletionStream"   // MockResponses/ChatCompletionStream.sse
///     }
/// }
/// let events = try await Net.perform(ChatCompletionStream(prompt: "Hello"))
/// for try await event in events {
///     if event.data == "[DONE]" { break }
///     print(try event.decode(ChatChunk.self).text, terminator: "")
/// }
/// ```
///
/// The body is parsed by the WHATWG rules (see ``ServerSentEvent``): CR, LF and CRLF line ends,
/// also split across network chunks; a leading BOM skipped; comments ignored; an event without
/// data not dispatched; an event the body ends in the middle of discarded. Backpressure,
/// cancellation, timeouts and failures work as for ``ByteStream``: breaking out of the loop
/// cancels the transfer; a connection that breaks mid-stream ends the loop with
/// ``NetworkError/transport(_:)``. An event larger than 16 MB ends it with
/// ``NetworkError/transport(_:)`` too.
///
/// It is `Decodable` only so that it can be a `BaseRequest` response type: decoding one from
/// JSON throws.
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

        /// The next event, or `nil` at the end of the body, on the caller's actor.
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> ServerSentEvent? {
            if let event = nextParsed() { return event }
            return try await nextReading(isolation: actor)
        }

        // `next` is inlined into the caller's loop, so that an event already parsed (most are:
        // a chunk holds hundreds) is a plain synchronous call away, without an async call into
        // this module per event; only reading the next chunk is one.

        /// An event of the chunk parsed already, if any.
        @usableFromInline
        mutating func nextParsed() -> ServerSentEvent? {
            items.nextReady()
        }

        /// Reads chunks until an event completes; `nil` at the end of the body.
        @usableFromInline
        mutating func nextReading(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> ServerSentEvent? {
            try await items.next(isolation: actor)
        }
    }
}
