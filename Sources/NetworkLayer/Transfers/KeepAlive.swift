import Foundation

/// TCP keepalive on a request's connection: after ``idle`` without traffic the kernel sends a
/// probe, then one every ``interval`` until the peer answers or the connection is given up. A NAT,
/// a firewall or a load balancer then sees traffic on a connection that carries a silent stream,
/// and a peer that vanished is noticed.
///
/// ```swift
/// Net.keepAlive = KeepAlive(idle: .seconds(60), interval: .seconds(30))
/// ```
///
/// Set on every connection a request opens (a connection kept for reuse may later carry a
/// stream): ``NetworkManager/keepAlive`` (default ``standard``, curl's own 60 s and 60 s; `nil`
/// turns it off), or a provider's ``ServiceProvider/keepAlive`` for its requests. Each value is
/// taken in whole seconds, from 1 s to ``longest`` (what the kernel accepts).
///
/// No HTTP/2 PING frames are sent: the libcurl of Debian 12 (7.88.1) cannot send one on demand on a
/// multi handle's connections (its `curl_easy_upkeep` reaches only `curl_easy_perform`'s own), so
/// TCP keepalive is what keeps an HTTP/2 connection alive too.
public struct KeepAlive: Sendable, Hashable {
    /// How long a connection is silent before the first probe.
    public var idle: Duration
    /// The time between probes.
    public var interval: Duration

    /// The longest idle time or interval: 32,767 s, Linux's limit.
    public static let longest = Duration.seconds(32_767)

    /// curl's own defaults: the first probe after 60 s of silence, then one every 60 s.
    public static let standard = KeepAlive(idle: .seconds(60), interval: .seconds(60))

    public init(idle: Duration, interval: Duration) {
        self.idle = idle
        self.interval = interval
    }

    /// The idle time in whole seconds, within 1 … 32,767.
    var idleSeconds: Int { Self.seconds(idle) }

    /// The interval in whole seconds, within 1 … 32,767.
    var intervalSeconds: Int { Self.seconds(interval) }

    /// `duration` rounded up to whole seconds, within 1 … ``longest``.
    static func seconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = min(max(duration, .seconds(1)), longest).components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }
}
