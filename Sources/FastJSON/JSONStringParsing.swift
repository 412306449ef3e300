import Foundation

enum JSONStringParsing {
    /// The content of a string without escapes or control characters that is all ASCII.
    @inline(__always)
    static func ascii(_ p: UnsafePointer<UInt8>, _ count: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
    }

    /// The content of a string without escapes or control characters, if it is valid UTF-8.
    @inline(__always)
    static func utf8(_ p: UnsafePointer<UInt8>, _ count: Int) -> String? {
        String(validating: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
    }

    /// The content of a string with escapes, if it is valid: only the JSON escapes, `\u` with four
    /// hex digits, a high surrogate only followed by an escaped low surrogate, no raw control
    /// characters, and valid UTF-8 in between. Foundation refuses exactly what this refuses
    /// (the caller then asks Foundation for its error).
    static func unescaped(_ p: UnsafePointer<UInt8>, _ count: Int) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(count, 1)) { out -> String? in
            // Never nil (the capacity is at least 1); if it were, Foundation would answer instead.
            guard let base = out.baseAddress else { return nil }
            var o = 0
            var i = 0
            while i < count {
                let c = p[i]
                if c == UInt8(ascii: "\\") {
                    // The scanner guarantees a byte after each backslash and four after `\u`.
                    let escape = p[i + 1]
                    i += 2
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out[o] = escape
                    case UInt8(ascii: "b"): out[o] = 0x08
                    case UInt8(ascii: "f"): out[o] = 0x0C
                    case UInt8(ascii: "n"): out[o] = 0x0A
                    case UInt8(ascii: "r"): out[o] = 0x0D
                    case UInt8(ascii: "t"): out[o] = 0x09
                    case UInt8(ascii: "u"):
                        guard let unit = hex4(p + i) else { return nil }
                        i += 4
                        var scalar = UInt32(unit)
                        if unit & 0xFC00 == 0xD800 {
                            guard count - i >= 6, p[i] == UInt8(ascii: "\\"), p[i + 1] == UInt8(ascii: "u"),
                                  let low = hex4(p + i + 2), low & 0xFC00 == 0xDC00 else { return nil }
                            i += 6
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                        } else if unit & 0xFC00 == 0xDC00 {
                            return nil
                        }
                        o += encode(scalar, into: base + o)
                        continue
                    default:
                        return nil
                    }
                    o += 1
                } else {
                    guard c >= 0x20 else { return nil }
                    out[o] = c
                    o += 1
                    i += 1
                }
            }
            return String(validating: UnsafeBufferPointer(rebasing: out[..<o]), as: UTF8.self)
        }
    }

    @inline(__always)
    private static func hex4(_ p: UnsafePointer<UInt8>) -> UInt16? {
        var value: UInt16 = 0
        for i in 0..<4 {
            let c = p[i]
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// Writes the UTF-8 encoding of a scalar (never a surrogate); returns its length. An escape
    /// is at least as long as its encoding, so the output never outgrows the input.
    @inline(__always)
    private static func encode(_ scalar: UInt32, into out: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case 0..<0x80:
            out[0] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            out[0] = UInt8(0xC0 | scalar >> 6)
            out[1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case 0x800..<0x10000:
            out[0] = UInt8(0xE0 | scalar >> 12)
            out[1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            out[0] = UInt8(0xF0 | scalar >> 18)
            out[1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            out[2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }
}
