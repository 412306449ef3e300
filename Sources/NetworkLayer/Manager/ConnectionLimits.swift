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
    public var idleConnectionTimeout: Duration?

    public init(perHost: Int? = nil, total: Int? = nil, idleTimeout: Duration? = nil) {
        self.perHost = perHost
        self.total = total
        idleConnectionTimeout = idleTimeout
    }

    /// libcurl's own behaviour: no limit.
    public static let unlimited = ConnectionLimits()
}

extension ConnectionLimits {
    // No default for `idleTimeout`, and disfavoured: `ConnectionLimits(perHost: 4)` and
    // `ConnectionLimits(idleTimeout: nil)` take the Duration initializer.
    @available(*, deprecated, message: "pass a Duration: ConnectionLimits(perHost: 4, idleTimeout: .seconds(30))")
    @_disfavoredOverload
    public init(perHost: Int? = nil, total: Int? = nil, idleTimeout: TimeInterval?) {
        self.init(perHost: perHost, total: total, idleTimeout: Self.duration(idleTimeout))
    }

    @available(*, deprecated, renamed: "idleConnectionTimeout", message: "a Duration: idleConnectionTimeout = .seconds(30)")
    public var idleTimeout: TimeInterval? {
        get { idleConnectionTimeout?.seconds }
        set { idleConnectionTimeout = Self.duration(newValue) }
    }

    /// NaN was libcurl's default, as `nil` is.
    private static func duration(_ seconds: TimeInterval?) -> Duration? {
        seconds.flatMap { $0.isNaN ? nil : Duration(clampingSeconds: $0) }
    }
}
