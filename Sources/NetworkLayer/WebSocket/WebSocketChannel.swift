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
    /// `cause` says why, for the log.
    func closeSoon(_ code: WebSocketCloseCode, reason: String, because cause: String)
    /// The close frame's code and reason once the socket closed.
    var closeStatus: (code: WebSocketCloseCode, reason: String)? { get }
}

/// The channel of a handshake response, held by the response and by the ``WebSocket`` made from
/// it. What closes a socket nobody uses is its ``WebSocketOwner``; this closes one whose response
/// never became a `WebSocket` (a validator refused the 101), once the last holder goes.
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

    private struct OwnerSlot {
        weak var owner: WebSocketOwner?
        /// Whether a WebSocket took the socket: from then on its owner closes it.
        var isClaimed = false
    }
    /// Weak: the WebSockets hold the owner, and a response kept elsewhere (a middleware's, an
    /// error's) must not keep the socket open.
    private let ownerSlot = Protected(OwnerSlot())

    /// The owner every WebSocket made from this handshake shares: the live one, else a new one.
    func owner() -> WebSocketOwner {
        ownerSlot.withLock { slot in
            if let owner = slot.owner { return owner }
            let owner = WebSocketOwner(channel: channel)
            slot.owner = owner
            slot.isClaimed = true
            return owner
        }
    }

    /// This handshake with `channel` in front of its socket (record mode's): the new upgrade closes
    /// the socket from then on, this one no longer.
    func replacingChannel(with channel: any WebSocketChannel) -> WebSocketUpgrade {
        ownerSlot.withLock { $0.isClaimed = true }
        return WebSocketUpgrade(channel: channel, subprotocol: subprotocol, isCompressed: isCompressed, log: log)
    }

    deinit {
        // A WebSocket lets go of its upgrade before its owner: closing is the owner's, with its cause.
        guard !ownerSlot.withLock({ $0.isClaimed }) else { return }
        channel.closeSoon(.goingAway, reason: "", because: "its handshake's response was dropped before it became a WebSocket")
    }
}

/// What keeps a socket open: every ``WebSocket`` made from one handshake holds the same owner, and
/// when the last of them goes the socket closes with 1001 (going away), whoever still holds the
/// handshake's response. Nothing the socket runs on (its thread, its inbox) may hold the owner,
/// or a socket nobody holds would never close.
final class WebSocketOwner: Sendable {
    let channel: any WebSocketChannel

    init(channel: any WebSocketChannel) {
        self.channel = channel
    }

    deinit {
        channel.closeSoon(.goingAway, reason: "", because: "its last reference was dropped")
    }
}

/// The checks `close` and `send` make on what the caller passes.
extension WebSocketCloseCode {
    /// The longest close reason, in bytes of UTF-8 (RFC 6455 §5.5).
    static let maximumReasonLength = 123

    /// Why a close frame with this code and reason cannot be sent, or `nil`.
    func problem(withReason reason: String) -> String? {
        guard isSendable else {
            return "the close code \(rawValue) may not be sent (1000–1003, 1007–1014 or 3000–4999)"
        }
        guard reason.utf8.count <= Self.maximumReasonLength else {
            return "the close reason is too long: \(reason.utf8.count) bytes of UTF-8, and a close reason is at most "
                + "\(Self.maximumReasonLength) (a close frame carries at most 125 bytes, 2 of them the code)"
        }
        return nil
    }

    /// The close frame's payload: the code, then the reason.
    func payload(reason: String) -> [UInt8] {
        [UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)] + Array(reason.utf8)
    }
}
