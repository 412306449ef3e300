import Foundation

extension Double {
    /// The number as people write it (`3` for 3.0, `0.1`): Swift's shortest round-tripping form
    /// without a useless `.0`, for every number the library writes into text.
    var compactText: String {
        // Below 1e15 the conversion is exact and cannot trap; NaN fails the comparison.
        if self == rounded(), abs(self) < 1e15 { return String(Int64(self)) }
        return "\(self)"
    }
}
