import Foundation

/// The server side of a mocked ``WebSocket``: what a `.webSocket { peer in … }` mock talks to.
///
/// ```swift
/// Net.mocks.register(.get, "/rooms/general/ws", .webSocket { peer in
///     try await peer.send(.text("welcome"))
///     for try await message in peer.messages { try await peer.send(message) }   // an echo
/// })
/// ```
///
/// When the closure returns, the socket closes with 1000; when it throws, the client's loop ends
/// with ``NetworkError/transport(_:)`` carrying the error and ``WebSocket/closeCode`` is 1011.
public final class WebSocketPeer: Sendable {
    /// The handshake as the client sent it (headers after the provider's, credentials, interceptors).
    public let request: RecordedRequest
    let channel: MockWebSocketChannel

    init(request: RecordedRequest, channel: MockWebSocketChannel) {
        self.request = request
        self.channel = channel
    }

    /// The client's messages, in order; the loop ends when the client closes.
    public var messages: Messages { Messages(channel: channel) }

    /// Sends a message to the client; waits while about 1 MB of messages is unread.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` once the socket is closed.
    public func send(_ message: WebSocketMessage) async throws(NetworkError) {
        try await channel.peerSend(message)
    }

    /// Closes the socket with `code` and `reason`: the client's loop ends after the messages sent before.
    public func close(_ code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        channel.peerClose(code, reason: reason)
    }

    /// The client's messages, as an `AsyncSequence`.
    public struct Messages: AsyncSequence, Sendable {
        public typealias Element = WebSocketMessage
        public typealias Failure = NetworkError
        let channel: MockWebSocketChannel

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(channel: channel) }

        /// Iterates the client's messages.
        public struct AsyncIterator: AsyncIteratorProtocol {
            public typealias Failure = NetworkError
            let channel: MockWebSocketChannel

            /// The client's next message, or `nil` once it closed.
            public mutating func next() async throws(NetworkError) -> WebSocketMessage? {
                try await channel.peerReceive()
            }

            /// The client's next message on the caller's actor, or `nil` once it closed.
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> WebSocketMessage? {
                try await channel.peerReceive()
            }
        }
    }
}

/// A message a mocked WebSocket carried, for a test to check: ``MockRegistry/webSocketMessages``.
public struct RecordedWebSocketMessage: Sendable, Hashable {
    /// Whether the client sent it or received it.
    public let isSent: Bool
    /// The message.
    public let message: WebSocketMessage
    /// The socket's URL.
    public let url: URL

    /// A message the client sent.
    public static func sent(_ message: WebSocketMessage, to url: URL) -> RecordedWebSocketMessage {
        RecordedWebSocketMessage(isSent: true, message: message, url: url)
    }

    /// A message the client received.
    public static func received(_ message: WebSocketMessage, from url: URL) -> RecordedWebSocketMessage {
        RecordedWebSocketMessage(isSent: false, message: message, url: url)
    }
}

extension MockResponse {
    /// A WebSocket whose server is `peer`: the handshake answers 101, then the closure runs
    /// with the socket's server side. See ``WebSocketPeer``.
    public static func webSocket(_ peer: @escaping @Sendable (WebSocketPeer) async throws -> Void) -> MockResponse {
        MockResponse(kind: .webSocket(peer))
    }
}
