import Foundation

extension StringProtocol {
    /// Equality ignoring the case of ASCII letters: how HTTP compares header names. Much cheaper
    /// than Foundation's locale-aware comparison, which matters on the per-request path.
    func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        var left = utf8.makeIterator()
        var right = other.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case let (a?, b?):
                if a != b && a | 0x20 != b | 0x20 { return false }
                if a != b && !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20) { return false }
            default: return false
            }
        }
    }
}
