import Foundation

/// A set of ASCII bytes as a 128-bit mask: membership is two shifts and a test.
struct ASCIISet: Sendable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    init(_ characters: String) {
        for byte in characters.utf8 where byte < 128 {
            if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
        }
    }

    func contains(_ byte: UInt8) -> Bool {
        byte < 64 ? low & (1 << UInt64(byte)) != 0 : byte < 128 && high & (1 << UInt64(byte - 64)) != 0
    }

    /// Whether every byte of `text`'s UTF-8 is in the set (over its contiguous storage when it has one).
    func containsAll<Text: StringProtocol>(_ text: Text) -> Bool {
        let result = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for byte in bytes where !contains(byte) { return false }
            return true
        }
        return result ?? text.utf8.allSatisfy { contains($0) }
    }
}
