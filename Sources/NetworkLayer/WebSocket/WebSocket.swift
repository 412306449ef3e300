import Foundation

/// A WebSocket (RFC 6455): messages both ways over one connection, until either side closes it.
///
/// Make it the response type of a request; ``NetworkManager/perform(_:isolation:)`` sends the
/// handshake (an HTTP/1.1 GET with `Upgrade: websocket`, built like any request: the provider's
/// headers and credentials, cookies, interceptors, the log) and returns the open socket. A
/// provider's `https` is `wss`, `http` is `ws`.
///
/// ```swift
/// final class ChatSocket: BaseRequest<WebSocket> {
///     init(room: String) {
///         super.init(serviceProvider: ChatProvider(), endpoint: "/rooms/\(room)/ws")
///         webSocketProtocols = ["chat.v2"]
///         mockedResponseFilename = "ChatSocket"   // MockResponses/ChatSocket.ws in mock mode
///     }
/// }
///
/// let socket = try await Net.perform(ChatSocket(room: "general"))
/// try await socket.send(.text("hello"))
/// for try await message in socket {
///     if case .text(let text) = message { print(text) }
/// }
/// try await socket.close(.normalClosure, reason: "bye")
/// ```
///
/// - **Handshake**: a status other than 101 fails `perform` with the usual ``NetworkError`` (its
///   status and body); so does a 101 whose `Sec-WebSocket-Accept`, subprotocol or extensions
///   do not answer the request. Pins, the CA bundle, client certificates, proxies (a CONNECT
///   tunnel), a provider's Unix socket and host overrides apply as for any request.
/// - **Receiving**: the loop gets whole messages (fragments joined, decompressed, text checked
///   as UTF-8); it ends when the server closes (then ``closeCode`` and ``closeReason`` say how),
///   and throws when the server breaks the protocol, a message is over
///   ``WebSocketOptions/maximumMessageSize``, the connection breaks, or a ping goes unanswered.
///   About 1 MB of messages is buffered ahead of the loop; beyond that the socket is not read
///   until the loop catches up. Cancelling the reading task closes the socket with 1001.
/// - **Sending**: ``send(_:)`` queues the message and returns; it waits while about 1 MB is
///   queued and not yet taken by the network (a slow peer slows the sender).
/// - **Closing**: ``close(_:reason:)`` sends a close frame and waits for the server's (at most
///   ``WebSocketOptions/closeTimeout``). Pings from the server are answered, and a ping goes out
///   every ``WebSocketOptions/pingInterval``. Dropping the last reference (the socket and its
///   iterators) closes with 1001 (going away) and frees the socket's thread and connection; a
///   loop still reading, or a `send` still waiting, holds a reference.
/// - **Isolation**: `send`, `close` and the loop run on the caller's actor (`nonisolated(nonsending)`):
///   a message already received or queued costs no hop to another executor.
///
/// It is `Decodable` only so that it can be a `BaseRequest` response type: decoding one from
/// JSON throws.
public final class WebSocket: AsyncSequence, Decodable, Sendable, StreamingResponse {
    public typealias Element = WebSocketMessage
    public typealias Failure = NetworkError

    /// The handshake's answer: status 101, its headers and metrics.
    public let response: HTTPResponse
    /// What the socket is connected to.
    let upgrade: WebSocketUpgrade
    /// Holding it keeps the socket open.
    private let owner: WebSocketOwner
    private let log: WebSocketLog?

    static var streamKind: StreamKind { .webSocket }

    init(streaming response: HTTPResponse) {
        var head = response.head
        head.webSocket = nil  // a caller keeping `response` keeps no connection alive
        self.response = head
        upgrade = response.webSocket ?? WebSocketUpgrade(channel: ClosedWebSocketChannel(request: response.requestDescription),
                                                        subprotocol: nil, isCompressed: false, log: nil)
        owner = upgrade.owner()
        log = upgrade.log
    }

    /// A `WebSocket` comes from a handshake, never from JSON: this always throws.
    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription:
            "WebSocket is a connection, not a body: make it the request's response type and perform the request"))
    }

    /// The subprotocol the server chose from the request's ``BaseRequest/webSocketProtocols``,
    /// or `nil` when it chose none.
    public var negotiatedProtocol: String? { upgrade.subprotocol }

    /// Whether messages are compressed both ways (the server accepted `permessage-deflate`).
    public var isCompressed: Bool { upgrade.isCompressed }

    /// The close frame's code once the socket closed: the server's when it closed or answered
    /// our close, ``WebSocketCloseCode/abnormalClosure`` (1006) when the connection ended
    /// without one, or the code we closed with after the server broke the protocol (1002, 1007,
    /// 1009). `nil` while the socket is open.
    public var closeCode: WebSocketCloseCode? { upgrade.channel.closeStatus?.code }

    /// The close frame's reason once the socket closed (often empty); `nil` while it is open.
    public var closeReason: String? { upgrade.channel.closeStatus?.reason }

    /// Sends a message: text or binary.
    ///
    /// Returns once the message is queued; waits while about 1 MB of earlier messages has not yet
    /// left. Messages go in the order `send` is called.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` after the socket closed; the failure that
    ///   ended it when it failed.
    public nonisolated(nonsending) func send(_ message: WebSocketMessage) async throws(NetworkError) {
        log?.message(message, outgoing: true)
        try await upgrade.channel.send(message)
    }

    /// Closes the socket: sends a close frame with `code` and `reason`, waits for the server's
    /// (at most ``WebSocketOptions/closeTimeout``), then closes the connection. Calling it on a
    /// closed socket does nothing. Messages arriving before the server's close frame still reach a
    /// loop reading the socket while it has room; the rest are dropped.
    ///
    /// - Parameters:
    ///   - code: 1000–1003, 1007–1014 or 3000–4999. Default ``WebSocketCloseCode/normalClosure``.
    ///   - reason: at most 123 bytes of UTF-8.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` for a code that may not be sent or a reason
    ///   over 123 bytes: nothing is sent and the socket stays open, so that `close` with a valid
    ///   code and reason (or dropping the socket) still closes it.
    public nonisolated(nonsending) func close(_ code: WebSocketCloseCode = .normalClosure, reason: String = "") async throws(NetworkError) {
        if let problem = code.problem(withReason: reason) {
            var context = NetworkError.Context(request: response.requestDescription, reason: problem)
            context.refusedSocketCall = .close
            throw .invalidRequest(context)
        }
        await upgrade.channel.close(code, reason: reason)
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(socket: self)
    }

    /// Iterates the messages; see ``WebSocket``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Failure = NetworkError

        let socket: WebSocket

        /// The next message, or `nil` once the socket closed.
        /// - Throws: the ``NetworkError`` that ended the socket; ``NetworkError/cancelled(_:)``
        ///   when the reading task is cancelled (the socket then closes with 1001).
        public mutating func next() async throws(NetworkError) -> WebSocketMessage? {
            try await socket.receive()
        }

        /// The next message on the caller's actor, or `nil` once the socket closed.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> WebSocketMessage? {
            try await socket.receive()
        }
    }

    private nonisolated(nonsending) func receive() async throws(NetworkError) -> WebSocketMessage? {
        try await upgrade.channel.receive()
    }
}

/// The channel of a `WebSocket` made from a response that has no socket (a hand-made one):
/// closed from the start.
final class ClosedWebSocketChannel: WebSocketChannel {
    let request: String

    init(request: String) {
        self.request = request
    }

    nonisolated(nonsending) func send(_ message: WebSocketMessage) async throws(NetworkError) {
        var context = NetworkError.Context(request: request, reason: "this WebSocket has no connection (its response was not a handshake's)")
        context.refusedSocketCall = .send
        throw .invalidRequest(context)
    }

    nonisolated(nonsending) func receive() async throws(NetworkError) -> WebSocketMessage? { nil }
    nonisolated(nonsending) func close(_ code: WebSocketCloseCode, reason: String) async {}
    func closeSoon(_ code: WebSocketCloseCode, reason: String, because cause: String) {}
    var closeStatus: (code: WebSocketCloseCode, reason: String)? { (.abnormalClosure, "") }
}
