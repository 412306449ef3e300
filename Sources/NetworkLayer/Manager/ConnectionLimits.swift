import Foundation

/// How many connections the library opens and keeps, for all managers together.
///
/// ```swift
/// Net.connectionLimits = ConnectionLimits(perHost: 8, total: 64, idleTimeout: 90)
/// ```
///
/// libcurl's connections are shared by every ``NetworkManager`` in the process, so these limits
/// are too (the last setting wins). A request beyond a limit waits for a connection, its timeout
/// running. Over HTTP/2 one connection carries many requests.
public struct ConnectionLimits: Sendable, Equatable {
    /// The most connections open at once to one host (and port). `nil`: no limit.
    public var perHost: Int?
    /// The most connections open at once in all. `nil`: no limit.
    public var total: Int?
    /// How long a kept-alive connection may stay unused before it is closed, in seconds. `nil`:
    /// libcurl's 118 s, checked when a request looks for a connection.
    public var idleTimeout: TimeInterval?

    public init(perHost: Int? = nil, total: Int? = nil, idleTimeout: TimeInterval? = nil) {
        self.perHost = perHost
        self.total = total
        self.idleTimeout = idleTimeout
    }

    /// libcurl's own behaviour: no limit, idle connections reused for up to 118 s.
    public static let unlimited = ConnectionLimits()
}
