import Foundation

extension Double {
    /// The number as people write it: `3` for 3.0, `9.99` for 9.99, `0.1` for 0.1 (Swift's
    /// shortest round-tripping form, without a useless `.0`); `inf` and `nan` as Swift prints them.
    ///
    /// Used wherever the library writes a number into text: query and form values, JSON bodies,
    /// timeouts in error reasons and in copy-as-curl's `--max-time`.
    var compactText: String {
        // Below 1e15 the conversion is exact and cannot trap; NaN fails the comparison.
        if self == rounded(), abs(self) < 1e15 { return String(Int64(self)) }
        return "\(self)"
    }
}
