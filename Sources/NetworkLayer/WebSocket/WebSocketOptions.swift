import Foundation

/// How a WebSocket behaves: its message size limit, compression, keepalive pings and close timeout.
///
/// Set on the manager (``NetworkManager/webSocketOptions``), a provider
/// (``ServiceProvider/webSocketOptions``) or a request (``BaseRequest/webSocketOptions``); the
/// request's wins over the provider's, the provider's over the manager's.
///
/// ```swift
/// Net.webSocketOptions = WebSocketOptions(maximumMessageSize: 16 << 20, compression: .permessageDeflate,
///                                         pingInterval: .seconds(30))
/// ```
public struct WebSocketOptions: Sendable, Hashable {
    /// The largest message accepted, in bytes, after decompression: a frame announcing more, or a
    /// message growing past it, closes the socket with ``WebSocketCloseCode/messageTooBig``.
    /// Values below 125 count as 125. Default 16 MiB.
    public var maximumMessageSize: Int
    /// Whether messages are compressed, if the server agrees. Default ``Compression/permessageDeflate``.
    public var compression: Compression
    /// How often a ping goes to the server; a pong missing when the next one is due fails the
    /// socket with ``NetworkError/timeOut(_:)``. `nil` (or not above zero): no pings. At most 10⁹ s
    /// is enforced. Default 30 seconds.
    public var pingInterval: Duration?
    /// How long ``WebSocket/close(_:reason:)`` waits for the server's close frame before it
    /// closes the connection anyway; enforced from zero to 10⁹ s. Default 5 seconds.
    public var closeTimeout: Duration
    /// The largest frame sent: a longer message goes as several frames (a fragmented message).
    /// Values below 1 count as 1. Default 1 MiB.
    public var maximumFrameSize: Int

    /// Options with the defaults: 16 MiB messages, compression offered, a ping every 30 seconds.
    public init(maximumMessageSize: Int = 16 << 20, compression: Compression = .permessageDeflate,
                pingInterval: Duration? = .seconds(30), closeTimeout: Duration = .seconds(5), maximumFrameSize: Int = 1 << 20) {
        self.maximumMessageSize = maximumMessageSize
        self.compression = compression
        self.pingInterval = pingInterval
        self.closeTimeout = closeTimeout
        self.maximumFrameSize = maximumFrameSize
    }

    /// Whether messages are compressed: per message, with DEFLATE (RFC 7692), when the server
    /// accepts the offer; uncompressed otherwise.
    public struct Compression: Sendable, Hashable {
        /// The DEFLATE parameters offered, or `nil` for no compression.
        let deflate: DeflateOffer?

        /// No compression offered.
        public static let none = Compression(deflate: nil)
        /// `permessage-deflate` offered with its defaults: both sides keep their compression
        /// context between messages, with the largest window the server accepts.
        public static let permessageDeflate = Compression(deflate: DeflateOffer())

        /// `permessage-deflate` with parameters: `noContextTakeover` asks that each side compress
        /// every message on its own (less memory kept between messages, less compression);
        /// `maximumWindowBits` (9…15) bounds the window both sides use.
        public static func permessageDeflate(noContextTakeover: Bool, maximumWindowBits: Int = 15) -> Compression {
            Compression(deflate: DeflateOffer(noContextTakeover: noContextTakeover,
                                              maximumWindowBits: min(15, max(9, maximumWindowBits))))
        }
    }

    /// What the client offers of `permessage-deflate`.
    struct DeflateOffer: Sendable, Hashable {
        var noContextTakeover = false
        var maximumWindowBits = 15
    }

    /// The message limit as enforced: at least 125 bytes (a control frame's largest payload).
    var messageLimit: Int { max(125, maximumMessageSize) }
    /// The frame size as enforced.
    var frameLimit: Int { max(1, maximumFrameSize) }
    /// The longest wait enforced (about 31 years): a caller's longer `Duration` added to the clock
    /// would overflow it, and trap.
    static let longestWait = Duration.seconds(1_000_000_000)
    /// The ping interval as enforced: `nil` for none (or a value not above zero), at most ``longestWait``.
    var pingLimit: Duration? { pingInterval.flatMap { $0 > .zero ? min($0, Self.longestWait) : nil } }
    /// The close timeout as enforced: from zero to ``longestWait``.
    var closeLimit: Duration { min(max(closeTimeout, .zero), Self.longestWait) }
}
