import Foundation

/// What a ``WebSocket`` talks to: a live connection (``WebSocketConnection``) or a mock peer
/// (``MockWebSocketChannel``).
protocol WebSocketChannel: AnyObject, Sendable {
    /// Queues the message; waits while the peer is slow (the queue is full).
    nonisolated(nonsending) func send(_ message: WebSocketMessage) async throws(NetworkError)
    /// The next message; `nil` once the socket closed.
    nonisolated(nonsending) func receive() async throws(NetworkError) -> WebSocketMessage?
    /// Starts the close handshake with `code` and waits for it to end (or its timeout).
    nonisolated(nonsending) func close(_ code: WebSocketCloseCode, reason: String) async
    /// Starts the close handshake without waiting: a cancelled reader, a socket nobody holds.
    func closeSoon(_ code: WebSocketCloseCode, reason: String)
    /// The close frame's code and reason once the socket closed.
    var closeStatus: (code: WebSocketCloseCode, reason: String)? { get }
}

/// The channel of a handshake response, held by the response until a ``WebSocket`` takes it;
/// when the last holder goes, the socket closes with 1001 (going away).
final class WebSocketUpgrade: Sendable {
    let channel: any WebSocketChannel
    /// The subprotocol the server chose.
    let subprotocol: String?
    /// Whether messages are compressed (permessage-deflate agreed).
    let isCompressed: Bool
    /// The request's log, for one line per message.
    let log: WebSocketLog?

    init(channel: any WebSocketChannel, subprotocol: String?, isCompressed: Bool, log: WebSocketLog?) {
        self.channel = channel
        self.subprotocol = subprotocol
        self.isCompressed = isCompressed
        self.log = log
    }

    deinit {
        channel.closeSoon(.goingAway, reason: "")
    }
}

/// The checks `close` and `send` make on what the caller passes.
extension WebSocketCloseCode {
    /// Why a close frame with this code and reason cannot be sent, or `nil`.
    func problem(withReason reason: String) -> String? {
        guard isSendable else {
            return "the close code \(rawValue) may not be sent (1000–1003, 1007–1014 or 3000–4999)"
        }
        guard reason.utf8.count <= 123 else {
            return "a close reason is at most 123 bytes of UTF-8, not \(reason.utf8.count)"
        }
        return nil
    }

    /// The close frame's payload: the code, then the reason.
    func payload(reason: String) -> [UInt8] {
        [UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)] + Array(reason.utf8)
    }
}
