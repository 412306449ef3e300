import Foundation

// Turning a tape node's bytes into a Swift value: the common cases directly from the bytes, and
// every other case (a malformed or unusual number, an invalid string, Decimal, base64 Data) by
// asking Foundation's own JSONDecoder about that one value. So a value is either produced here
// in a way that provably agrees with Foundation, or produced (or refused) by Foundation itself.

enum JSONNumberParsing {
    /// `-?(0|[1-9][0-9]*)` that fits in `T`, or nil: Foundation then decides (fractions and
    /// exponents like `1.0` or `1e2` that Foundation accepts for integers, overflow, bad syntax).
    @inline(__always)
    static func integer<T: FixedWidthInteger>(_ p: UnsafePointer<UInt8>, _ count: Int, as _: T.Type) -> T? {
        var i = 0
        let negative = p[0] == UInt8(ascii: "-")
        if negative {
            guard T.isSigned else { return nil }
            i = 1
        }
        guard i < count else { return nil }
        if p[i] == UInt8(ascii: "0") { return count - i == 1 ? 0 : nil }
        if count - i <= 18 { // below 10^18: no overflow in 64 bits
            var magnitude: UInt64 = 0
            while i < count {
                let digit = p[i] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                magnitude = magnitude &* 10 &+ UInt64(digit)
                i += 1
            }
            return negative ? T(exactly: -Int64(bitPattern: magnitude)) : T(exactly: magnitude)
        }
        var value: T = 0
        while i < count {
            let digit = p[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (scaled, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative
                ? scaled.subtractingReportingOverflow(T(truncatingIfNeeded: digit))
                : scaled.addingReportingOverflow(T(truncatingIfNeeded: digit))
            guard !overflow1, !overflow2 else { return nil }
            value = next
            i += 1
        }
        return value
    }

    /// Powers of ten that are exact in a Double.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// A JSON number as a Double, or nil: Foundation then decides (bad syntax, out of range, or a
    /// non-zero number that rounds to zero — all errors in Foundation).
    ///
    /// Foundation checks the JSON number syntax and calls `strtod`, which rounds correctly. Here the
    /// syntax is checked the same way, and the value is computed exactly when the digits fit in 53
    /// bits and the power of ten is exact (one correctly rounded operation, the same result), else
    /// by `strtod` too.
    @inline(__always)
    static func double(_ p: UnsafePointer<UInt8>, _ count: Int) -> Double? {
        guard let number = Parsed(p, count) else { return nil }
        if number.mantissa == 0 && !number.truncated { return number.negative ? -0.0 : 0.0 }
        if !number.truncated, number.mantissa <= 1 << 53, number.exponent >= -22, number.exponent <= 22 {
            let magnitude = number.exponent < 0
                ? Double(number.mantissa) / exactPowersOfTen[-number.exponent]
                : Double(number.mantissa) * exactPowersOfTen[number.exponent]
            return number.negative ? -magnitude : magnitude
        }
        guard let value = correctlyRounded(p, count, strtod, Double.init),
              value.isFinite, value != 0 || !number.hasNonZeroDigit else { return nil }
        return value
    }

    /// A JSON number as a Float (Foundation uses `strtof`), or nil.
    static func float(_ p: UnsafePointer<UInt8>, _ count: Int) -> Float? {
        guard let number = Parsed(p, count),
              let value = correctlyRounded(p, count, strtof, Float.init),
              value.isFinite, value != 0 || !number.hasNonZeroDigit else { return nil }
        return value
    }

    /// A syntactically valid JSON number parsed by the C library (`strtod`, `strtof`: correctly
    /// rounded, like the `_clocale` variants Foundation calls) from a NUL-terminated copy on the
    /// stack. If the process's locale makes it stop early (a decimal comma), Swift's
    /// locale-independent parser (also correctly rounded) takes over.
    @inline(__always)
    private static func correctlyRounded<F>(_ p: UnsafePointer<UInt8>, _ count: Int,
                                            _ parse: (UnsafePointer<CChar>, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> F,
                                            _ fromString: (String) -> F?) -> F? {
        let parsed = withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buffer -> F? in
            let copy = buffer.baseAddress!
            UnsafeMutableRawPointer(copy).copyMemory(from: p, byteCount: count)
            copy[count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = parse(copy, &end)
            return end == copy + count ? value : nil
        }
        return parsed ?? fromString(String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self))
    }

    /// A number checked against the JSON grammar `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`,
    /// which is exactly what Foundation's checks plus `strtod` consuming every byte accept.
    struct Parsed {
        var negative = false
        /// The first 19 significant digits.
        var mantissa: UInt64 = 0
        var significantDigits = 0
        /// More significant digits than `mantissa` holds.
        var truncated = false
        var hasNonZeroDigit = false
        /// The value is `mantissa × 10^exponent` (when not truncated).
        var exponent = 0

        @inline(__always)
        init?(_ p: UnsafePointer<UInt8>, _ count: Int) {
            var i = 0
            if p[0] == UInt8(ascii: "-") {
                negative = true
                i = 1
            }
            guard i < count else { return nil }
            let first = p[i]
            if first == UInt8(ascii: "0") {
                i += 1
            } else if first &- UInt8(ascii: "1") < 9 {
                while i < count, p[i] &- UInt8(ascii: "0") < 10 {
                    add(p[i] &- UInt8(ascii: "0"), fraction: false)
                    i += 1
                }
            } else {
                return nil
            }
            if i < count, p[i] == UInt8(ascii: ".") {
                i += 1
                let start = i
                while i < count, p[i] &- UInt8(ascii: "0") < 10 {
                    add(p[i] &- UInt8(ascii: "0"), fraction: true)
                    i += 1
                }
                guard i > start else { return nil }
            }
            if i < count, p[i] | 0x20 == UInt8(ascii: "e") {
                i += 1
                var exponentNegative = false
                if i < count, p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") {
                    exponentNegative = p[i] == UInt8(ascii: "-")
                    i += 1
                }
                let start = i
                var value = 0
                while i < count, p[i] &- UInt8(ascii: "0") < 10 {
                    if value < 1_000_000 { value = value * 10 + Int(p[i] &- UInt8(ascii: "0")) }
                    i += 1
                }
                guard i > start else { return nil }
                exponent += exponentNegative ? -value : value
            }
            guard i == count else { return nil }
        }

        @inline(__always)
        private mutating func add(_ digit: UInt8, fraction: Bool) {
            if digit != 0 { hasNonZeroDigit = true }
            if significantDigits < 19 {
                mantissa = mantissa &* 10 &+ UInt64(digit)
                if mantissa != 0 { significantDigits += 1 }
                if fraction { exponent -= 1 }
            } else {
                if digit != 0 { truncated = true }
                if !fraction { exponent += 1 }
            }
        }
    }
}

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
                        o += encode(scalar, into: out.baseAddress! + o)
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

/// Foundation's `JSONDecoder` asked about one value, for the cases the fast paths leave to it.
///
/// The value's bytes are decoded as a top-level fragment (after a space, so Foundation's encoding
/// detection always sees UTF-8). Foundation parses a number or string from its bytes alone, so the
/// answer is the one it would give inside the whole document. A wrapper catches the error inside
/// Foundation's decoding, before Foundation turns it into a top-level `dataCorrupted`: so the
/// caller can throw the very error Foundation throws at that point (Foundation's internal
/// `JSONError` for a malformed number or string, which `FastJSONDecoder.decode` turns into
/// `dataCorrupted` at the top level, exactly as `JSONDecoder.decode` does).
enum FoundationJSON {
    /// A default `JSONDecoder`, for the reference answers and for input this decoder leaves to Foundation.
    static let decoder = JSONDecoder()

    private struct Probe<T: Decodable>: Decodable {
        let result: Result<T, any Error>

        init(from decoder: any Decoder) {
            do {
                result = .success(try decoder.singleValueContainer().decode(T.self))
            } catch {
                result = .failure(error)
            }
        }
    }

    /// Foundation's answer for a number's bytes decoded as `T`.
    static func number<T: Decodable>(_ type: T.Type, _ p: UnsafePointer<UInt8>, _ count: Int) -> Result<T, any Error> {
        var fragment = Data(capacity: count + 1)
        fragment.append(UInt8(ascii: " "))
        fragment.append(p, count: count)
        return probe(T.self, fragment)
    }

    /// Foundation's answer for a string's content bytes (between the quotes) decoded as `T`.
    static func string<T: Decodable>(_ type: T.Type, _ p: UnsafePointer<UInt8>, _ count: Int) -> Result<T, any Error> {
        var fragment = Data(capacity: count + 3)
        fragment.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: "\"")])
        fragment.append(p, count: count)
        fragment.append(UInt8(ascii: "\""))
        return probe(T.self, fragment)
    }

    private static func probe<T: Decodable>(_: T.Type, _ fragment: Data) -> Result<T, any Error> {
        do {
            return try decoder.decode(Probe<T>.self, from: fragment).result
        } catch {
            return .failure(error)
        }
    }

    /// The type of the internal error Foundation's JSON parser throws, caught once from a malformed number.
    private static let parserErrorType: ObjectIdentifier? = {
        let minus = [UInt8(ascii: "-")]
        guard case .failure(let error) = minus.withUnsafeBufferPointer({ number(Int.self, $0.baseAddress!, 1) }),
              !(error is DecodingError) else { return nil }
        return ObjectIdentifier(type(of: error))
    }()

    /// Whether `error` is Foundation's internal parser error, which `JSONDecoder.decode` reports as
    /// `dataCorrupted` with an empty coding path.
    static func isParserError(_ error: any Error) -> Bool {
        !(error is DecodingError) && ObjectIdentifier(type(of: error)) == parserErrorType
    }

    /// The error `JSONDecoder.decode` throws for anything its parser refuses.
    static var invalidJSON: DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "The given data was not valid JSON."))
    }
}
