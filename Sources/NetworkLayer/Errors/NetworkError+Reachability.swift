import Foundation

extension NetworkError {
    /// Why a host could not be reached (``NetworkError/reachabilityReason``), so that an alert tells a
    /// name that does not resolve from a server that is down from a network that is gone. Through a
    /// proxy, it may be about the proxy (the reason names it). Its raw value, the same in every
    /// release, fits a metric label; a struct, so that a later reason breaks no `switch`.
    ///
    /// ```swift
    /// catch let error where error.reachabilityReason == .hostNotFound { alert("DNS") }
    /// ```
    public struct ReachabilityReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The host name did not resolve: a wrong name, or no name server answered.
        public static let hostNotFound = ReachabilityReason(rawValue: "hostNotFound")
        /// The host refused the connection: nothing listens on the port (`ECONNREFUSED`).
        public static let connectionRefused = ReachabilityReason(rawValue: "connectionRefused")
        /// No route leads to the network or the host (`ENETUNREACH`, `EHOSTUNREACH`): this machine
        /// is offline, or the address is one it cannot reach.
        public static let networkUnreachable = ReachabilityReason(rawValue: "networkUnreachable")
        /// Any other cause: a Unix socket that is not there, a network interface that cannot be
        /// used, a proxy that refused to open a tunnel, or an error made without a reason.
        public static let other = ReachabilityReason(rawValue: "other")
    }

    /// Why the host could not be reached, for a ``reachability(_:)`` error (``ReachabilityReason/other``
    /// when its context names none, as `NetworkError.reachability` does); `nil` for every other case.
    public var reachabilityReason: ReachabilityReason? {
        guard case .reachability(let context) = self else { return nil }
        return context.reachabilityReason ?? .other
    }

    /// A ``reachability(_:)`` error for `reason`, its context saying so.
    static func unreachable(_ context: Context, _ reason: ReachabilityReason) -> NetworkError {
        var context = context
        context.reachabilityReason = reason
        return .reachability(context)
    }
}

extension NetworkError.ReachabilityReason {
    /// The reason a failed `connect` gives by its `errno` (libcurl's `CURLINFO_OS_ERRNO`).
    init(connectErrno: Int32) {
        switch connectErrno {
        case ECONNREFUSED: self = .connectionRefused
        case ENETUNREACH, EHOSTUNREACH: self = .networkUnreachable
        default: self = .other
        }
    }
}
