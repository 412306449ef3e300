import Foundation

/// An origin's limit as it stands: ``NetworkManager/trafficState(for:)``.
public struct TrafficState: Sendable, Equatable {
    /// How many requests may be in flight now (an adaptive limit's current value).
    public let limit: Int
    /// Requests sent and not yet answered.
    public let inFlight: Int
    /// Requests waiting for a place.
    public let queued: Int
}
