import Foundation

/// TCP keepalive on a request's connection: after ``idle`` without traffic the kernel sends a
/// probe, then one every ``interval``, so middleboxes see traffic on a silent stream and a
/// vanished peer is noticed. Set by ``NetworkManager/keepAlive`` (default ``standard``; `nil`
/// turns it off) or ``ServiceProvider/keepAlive``, in whole seconds from 1 s to ``longest``.
///
/// No HTTP/2 PING frames are sent (libcurl cannot send one on demand on a multi handle's
/// connections), so TCP keepalive keeps HTTP/2 connections alive too.
public struct KeepAlive: Sendable, Hashable {
    public var idle: Duration
    public var interval: Duration

    /// The longest idle time or interval: 32,767 s, Linux's limit.
    public static let longest = Duration.seconds(32_767)

    /// curl's own defaults: the first probe after 60 s of silence, then one every 60 s.
    public static let standard = KeepAlive(idle: .seconds(60), interval: .seconds(60))

    public init(idle: Duration, interval: Duration) {
        self.idle = idle
        self.interval = interval
    }

    var idleSeconds: Int { Self.seconds(idle) }

    var intervalSeconds: Int { Self.seconds(interval) }

    /// `duration` rounded up to whole seconds, within 1 … ``longest``.
    static func seconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = min(max(duration, .seconds(1)), longest).components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }
}
