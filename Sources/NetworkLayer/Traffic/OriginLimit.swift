import Foundation

/// How many requests may be in flight at once to one origin (scheme, host and port); those
/// beyond wait in a queue, by ``RequestPriority`` then in order of arrival.
///
/// Set it on ``NetworkManager/maximumRequestsPerOrigin`` or ``ServiceProvider/maximumRequestsPerOrigin``;
/// `nil`, the default, queues nothing. Each hop (a retry, a redirect) takes a place and gives it
/// back when its response's head arrives or it fails: a streamed body or a WebSocket does not hold
/// it. libcurl's own ``ConnectionLimits`` still apply underneath.
///
/// ```swift
/// Net.maximumRequestsPerOrigin = 8
/// Net.maximumRequestsPerOrigin = .adaptive(minimum: 2, maximum: 64, initial: 8)
/// ```
///
/// A limit below 1 fails each request with ``NetworkError/invalidRequest(_:)``; large values are
/// accepted (no request then waits).
public struct OriginLimit: Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case fixed(Int)
        case adaptive(minimum: Int, maximum: Int, initial: Int)
    }

    let kind: Kind

    /// At most `limit` requests in flight; the rest wait.
    public static func fixed(_ limit: Int) -> OriginLimit { OriginLimit(kind: .fixed(limit)) }

    /// A limit that follows the origin's latency between `minimum` and `maximum`, starting at
    /// `initial`: it falls when responses slow down as more are in flight, and rises while they
    /// do not (a gradient limiter, after Netflix's concurrency-limits). Read it with
    /// ``NetworkManager/trafficState(for:)``.
    public static func adaptive(minimum: Int = 1, maximum: Int = 200, initial: Int = 20) -> OriginLimit {
        OriginLimit(kind: .adaptive(minimum: minimum, maximum: maximum, initial: initial))
    }

    /// ``adaptive(minimum:maximum:initial:)`` between 1 and 200, starting at 20.
    public static var adaptive: OriginLimit { .adaptive() }

    public init(integerLiteral limit: Int) {
        kind = .fixed(limit)
    }

    init(kind: Kind) {
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case .fixed(let limit): "\(limit)"
        case .adaptive(let minimum, let maximum, let initial): "adaptive(minimum: \(minimum), maximum: \(maximum), initial: \(initial))"
        }
    }

    /// Why this limit cannot be used, said so that the user knows what to set, or `nil`.
    var problem: String? {
        switch kind {
        case .fixed(let limit) where limit < 1:
            "maximumRequestsPerOrigin is \(limit), which would let no request through; set 1 or more, or nil for no limit"
        case .adaptive(let minimum, let maximum, _) where minimum < 1 || maximum < minimum:
            "maximumRequestsPerOrigin is \(self); its minimum must be 1 or more and its maximum at least the minimum"
        default: nil
        }
    }
}
