import Foundation

extension Duration {
    /// The duration in seconds, as a `TimeInterval`; never traps (`components` does beyond
    /// `Int64.max` seconds, and a caller may set `.seconds(1e20)`).
    var seconds: TimeInterval { self / .seconds(1) }

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
