/// The header block of the response being received, built from libcurl's lines one at a time:
/// it starts over at each status line (after an interim 1xx), notes a compressed body, and
/// refuses what would let a server smuggle a header or blur the body's framing (a bare CR, LF or
/// NUL inside a line, two different `Content-Length` values).
struct ResponseHeaderBlock {
    /// What to do with the line just received.
    enum Verdict: Equatable {
        /// Keep going: the line was kept (or it ended or restarted the block).
        case accepted
        /// Keep going: the line was kept, and it announced a body of this many bytes.
        case announcedLength(Int)
        /// Refuse the response, for this reason.
        case malformed(String)
    }

    /// The `Name: value` lines of the latest response, each ended by `\n`.
    private(set) var bytes: [UInt8]
    /// The `Content-Length` the latest response announced.
    private(set) var announcedLength: Int?
    /// Whether the latest response named a `Content-Encoding` other than `identity`.
    private(set) var isContentEncoded = false

    init() {
        bytes = []
        bytes.reserveCapacity(512)
    }

    /// Takes one line as libcurl delivers it (with its CRLF or LF, or neither).
    mutating func receive(_ line: UnsafeBufferPointer<UInt8>) -> Verdict {
        var count = line.count
        if count > 0, line[count - 1] == 0x0A { count -= 1 }
        if count > 0, line[count - 1] == 0x0D { count -= 1 }
        guard count > 0 else { return .accepted }  // the blank line that ends the block
        if count >= 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
           line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/") {
            bytes.removeAll(keepingCapacity: true)
            announcedLength = nil
            isContentEncoded = false
            return .accepted
        }
        let kept = UnsafeBufferPointer(rebasing: line[0..<count])
        // RFC 9112: a bare CR, or a NUL, inside a field is an error (it could smuggle a header).
        if Self.holdsLineBreakOrNUL(kept) {
            return .malformed("a header line holds a bare CR, LF or NUL")
        }
        bytes.append(contentsOf: kept)
        bytes.append(UInt8(ascii: "\n"))
        if Self.isEncodingLine(kept) { isContentEncoded = true }
        guard let length = Self.contentLength(kept) else { return .accepted }
        // RFC 9112 section 6.3: differing Content-Length values make the framing unknowable.
        if let announced = announcedLength, announced != length {
            return .malformed("it carries two different Content-Length headers (\(announced) and \(length))")
        }
        announcedLength = length
        return .announcedLength(length)
    }

    /// Whether `line` holds a CR, an LF or a NUL (eight bytes at a time).
    private static func holdsLineBreakOrNUL(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        if let base = line.baseAddress {
            while index + 8 <= line.count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                // Exact for "some byte is below 0x0E" (SWAR: every byte of `word` minus 0x0E,
                // its borrow seen in the top bit only where the byte itself had it clear).
                if (word &- 0x0E0E_0E0E_0E0E_0E0E) & ~word & 0x8080_8080_8080_8080 != 0 {
                    for byte in line[index..<index + 8] where isLineBreakOrNUL(byte) { return true }
                }
                index += 8
            }
        }
        while index < line.count {
            if isLineBreakOrNUL(line[index]) { return true }
            index += 1
        }
        return false
    }

    private static func isLineBreakOrNUL(_ byte: UInt8) -> Bool {
        byte <= 0x0D && (byte == 0x0D || byte == 0x0A || byte == 0x00)
    }

    /// Whether `line` starts with `name` (lowercase ASCII), ignoring the case of ASCII letters.
    private static func starts(_ line: UnsafeBufferPointer<UInt8>, withLowercase name: StaticString) -> Bool {
        let count = name.utf8CodeUnitCount
        guard line.count >= count else { return false }
        let expected = name.utf8Start
        for index in 0..<count {
            let byte = line[index]
            let lowered = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            guard lowered == expected[index] else { return false }
        }
        return true
    }

    private static let contentEncodingName: StaticString = "content-encoding:"
    private static let contentLengthName: StaticString = "content-length:"

    /// Whether the line is a `Content-Encoding:` header naming an encoding other than `identity`
    /// (white space around the value aside).
    static func isEncodingLine(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        let nameCount = contentEncodingName.utf8CodeUnitCount
        guard line.count > nameCount, line[0] | 0x20 == UInt8(ascii: "c"),
              starts(line, withLowercase: contentEncodingName) else { return false }
        var value = line[nameCount...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        return !value.isEmpty && !value.elementsEqualIgnoringASCIICase("identity".utf8)
    }

    /// The value of a `Content-Length:` line (name in any case, digits with optional blanks around),
    /// or `nil` for any other line or a value that is not a decimal number within `Int`.
    static func contentLength(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
        let nameCount = contentLengthName.utf8CodeUnitCount
        guard line.count > nameCount, line[0] | 0x20 == UInt8(ascii: "c"),
              starts(line, withLowercase: contentLengthName) else { return nil }
        var value = 0
        var sawDigit = false
        var sawSpaceAfterDigits = false
        for byte in line[nameCount...] {
            if byte == 0x20 || byte == 0x09 {
                sawSpaceAfterDigits = sawDigit
                continue
            }
            // Digits after the number's trailing space ("12 34") are not one number.
            guard !sawSpaceAfterDigits, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            sawDigit = true
        }
        return sawDigit ? value : nil
    }
}
