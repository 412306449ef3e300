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
        if number.mantissa == 0 && !number.truncated {
            return isZeroAsFoundationChecks(p, count) ? (number.negative ? -0.0 : 0.0) : nil
        }
        if !number.truncated, number.mantissa <= 1 << 53, number.exponent >= -22, number.exponent <= 22 {
            let magnitude = number.exponent < 0
                ? Double(number.mantissa) / exactPowersOfTen[-number.exponent]
                : Double(number.mantissa) * exactPowersOfTen[number.exponent]
            return number.negative ? -magnitude : magnitude
        }
        guard let value = correctlyRounded(p, count, strtod, Double.init),
              value.isFinite, value != 0 || !number.hasNonZeroDigit && isZeroAsFoundationChecks(p, count) else { return nil }
        return value
    }

    /// A JSON number as a Float (Foundation uses `strtof`), or nil.
    static func float(_ p: UnsafePointer<UInt8>, _ count: Int) -> Float? {
        guard let number = Parsed(p, count),
              let value = correctlyRounded(p, count, strtof, Float.init),
              value.isFinite, value != 0 || !number.hasNonZeroDigit && isZeroAsFoundationChecks(p, count) else { return nil }
        return value
    }

    /// Whether Foundation takes a number that parsed as zero for a real zero (and not a non-zero
    /// number that underflowed, which it refuses). Its check (`JSONDecoderImpl.isTrueZero`) stops
    /// at the first digit 1-9 (no) or `e`/`E` (yes), reading whole groups of four bytes forwards
    /// and the last `count % 4` bytes backwards: so `0e2`, `0E9` and `0.00e5` are refused as
    /// Double and Float, while `0e22` and `-0e2` are zero. Where this says no, the decoder leaves
    /// the number to Foundation, which gives its own answer (the same error today, and whatever a
    /// corrected Foundation gives tomorrow).
    static func isZeroAsFoundationChecks(_ p: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        func verdict(_ byte: UInt8) -> Bool? {
            if byte &- UInt8(ascii: "1") < 9 { return false }
            if byte | 0x20 == UInt8(ascii: "e") { return true }
            return nil
        }
        let whole = count - count % 4
        for i in 0..<whole {
            if let answer = verdict(p[i]) { return answer }
        }
        for i in stride(from: count - 1, through: whole, by: -1) {
            if let answer = verdict(p[i]) { return answer }
        }
        return true
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
            // Never nil (the capacity is at least 1); if it were, Swift's parser below takes over.
            guard let copy = buffer.baseAddress else { return nil }
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
