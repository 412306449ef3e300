import Foundation

/// Sends a second copy of a slow read: when the first attempt has not answered after the delay,
/// another starts, the first answer wins and the others are cancelled (their transfers stop).
///
/// Only for a `GET` or `HEAD` without a body, a stream or a download, live (not mocked); on any
/// other request it is ignored, since sending it twice could do twice what it asks. Each copy
/// goes through the rest of the chain: it takes its own connection slot and counts in the
/// provider's ``CircuitBreaker``.
///
/// ```swift
/// request.hedging = .after(.percentile(95), maximumExtra: 1)
/// ```
public struct Hedging: Sendable, Equatable {
    /// How long to wait for an answer before each extra copy.
    public var delay: HedgeDelay
    /// Copies beyond the first, within 1 … 4.
    public var maximumExtra: Int

    /// Hedges after `delay`, at most `maximumExtra` times (1 … 4).
    public static func after(_ delay: HedgeDelay, maximumExtra: Int = 1) -> Hedging {
        Hedging(delay: delay, maximumExtra: maximumExtra)
    }

    var extras: Int { min(max(maximumExtra, 1), 4) }
}

/// When a hedged request sends its next copy.
public enum HedgeDelay: Sendable, Equatable {
    /// After this percentile (0 … 100) of the origin's recent answer times. No hedge until the
    /// origin has answered ``minimumSamples`` times; the last ``sampleCapacity`` answers count.
    case percentile(Double)
    /// After a fixed time.
    case duration(Duration)

    /// Answers an origin must have given before a percentile is trusted.
    public static let minimumSamples = 20
    /// Answers remembered per origin.
    public static let sampleCapacity = 256
}
