import Foundation

extension Sequence<UInt8> {
    /// Equality ignoring the case of ASCII letters, byte by byte, as HTTP compares header names;
    /// bytes outside `A-Z a-z` must match exactly (no locale-aware folding).
    func elementsEqualIgnoringASCIICase(_ other: some Sequence<UInt8>) -> Bool {
        var left = makeIterator()
        var right = other.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case let (a?, b?):
                guard a == b || (a | 0x20 == b | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20)) else {
                    return false
                }
            default: return false
            }
        }
    }
}

extension StringProtocol {
    /// Equality ignoring the case of ASCII letters (see ``Swift/Sequence/elementsEqualIgnoringASCIICase(_:)``).
    func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        utf8.elementsEqualIgnoringASCIICase(other.utf8)
    }
}
