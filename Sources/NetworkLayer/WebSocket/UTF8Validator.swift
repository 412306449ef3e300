import Foundation

/// Checks UTF-8 as it arrives in pieces (RFC 3629, as WHATWG's decoder): a text message is
/// refused at the first byte that cannot be part of valid UTF-8, even in an unfinished fragment.
struct UTF8Validator: Sendable {
    /// Continuation bytes still expected, and the range the next one must fall in (narrower after
    /// E0, ED, F0 and F4: no overlong forms, no surrogates, nothing above U+10FFFF).
    private var needed = 0
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// Whether every sequence so far is complete.
    var isComplete: Bool { needed == 0 }

    /// Whether `bytes` continue valid UTF-8.
    mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            if needed == 0 {
                // ASCII eight bytes at a time.
                while index + 8 <= count, base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                }
                guard index < count else { break }
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                index += 1
                switch byte {
                case 0x00...0x7F: continue
                case 0xC2...0xDF: needed = 1
                case 0xE0: needed = 2; lower = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: needed = 2
                case 0xED: needed = 2; upper = 0x9F
                case 0xF0: needed = 3; lower = 0x90
                case 0xF1...0xF3: needed = 3
                case 0xF4: needed = 3; upper = 0x8F
                default: return false
                }
            } else {
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                index += 1
                guard byte >= lower, byte <= upper else { return false }
                lower = 0x80
                upper = 0xBF
                needed -= 1
            }
        }
        return true
    }

    mutating func validate(_ bytes: some ContiguousBytes) -> Bool {
        bytes.withUnsafeBytes { validate($0) }
    }
}
