import Foundation

extension Duration {
    /// The duration in seconds; never traps (`components` does beyond `Int64.max` s: `.seconds(1e20)`),
    /// and within that range skips the 128-bit division every request would pay.
    var seconds: TimeInterval {
        guard self <= .seconds(Int64.max), self >= .seconds(-Int64.max) else { return self / .seconds(1) }
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A number of seconds from a deprecated `TimeInterval` spelling, without trapping: NaN is zero
    /// (refused, as NaN was), an infinity `±Int64.max` s (beyond 10⁹ s: no limit, as `.infinity` was).
    init(clampingSeconds seconds: TimeInterval) {
        if seconds.isNaN {
            self = .zero
        } else if abs(seconds) >= 1e18 {
            self = .seconds(seconds > 0 ? Int64.max : -Int64.max)
        } else {
            self = .seconds(seconds)
        }
    }
}
