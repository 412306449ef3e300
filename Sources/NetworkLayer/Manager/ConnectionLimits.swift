import Foundation
/// How many connections the library opens and keeps, for all managers together (the last setting
/// wins). A request beyond a limit waits for a connection, its timeout running.
public struct ConnectionLimits: Sendable, Equatable {
    /// The most connections open at once to one host (and port). `nil`: no limit.
    public var perHost: Int?
    /// The most connections open at once in all. `nil`: no limit.
    public var total: Int?
    /// How long an unused kept-alive connection stays open, counted in whole seconds (rounded up).
    /// `nil`: libcurl's 118 s.
    public var idleTimeout: Duration?

    public init(perHost: Int? = nil, total: Int? = nil, idleTimeout: Duration? = nil) {
        self.perHost = perHost
        self.total = total
        self.idleTimeout = idleTimeout
    }

    /// libcurl's own behaviour: no limit.
    public static let unlimited = ConnectionLimits()
}
