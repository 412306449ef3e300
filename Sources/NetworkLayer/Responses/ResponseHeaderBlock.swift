/// The header block of the response being received, built from libcurl's lines one at a time:
/// it starts over at each status line (after an interim 1xx), notes a compressed body, and
/// refuses what would let a server smuggle a header or blur the body's framing (a bare CR, LF or
/// NUL inside a line, two different `Content-Length` values).
///
/// A folded line (RFC 9112 section 5.2) is unfolded, the fold one SP, so that no continuation line
/// becomes a header of its own; a fold of a header libcurl acts on by its first line alone
/// (``actedOnByLibcurl``), or one that continues no header line, refuses the response.
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
    /// Where the latest header line of this block starts in ``bytes``, which a continuation line
    /// extends; `nil` before the first one, after a status line and after the blank line.
    private var fieldStart: Int?
    /// How far the latest response has come, which says what a failure of libcurl's while
    /// reading a line was about (``isInHead``, ``isRightAfterStatusLine``).
    private var position = Position.start

    private enum Position {
        case start
        case statusLine
        case fields
        case ended
    }

    /// Whether the lines so far are a response head not yet ended by its blank line (or no line yet).
    var isInHead: Bool { position != .ended }
    /// Whether the latest line was a status line.
    var isRightAfterStatusLine: Bool { position == .statusLine }

    /// The line libcurl stored last for its headers API in this transfer, as the lines show; kept
    /// when the block tracks it (see ``CurlEasyHandle/keepsStaleHeaderPointer``).
    private(set) var lastStored = StoredHeader.nothing
    private let tracksLastStored: Bool

    /// libcurl stores every line it hands over but status lines and the blank line; a continuation
    /// extends the line before; over HTTP/2 it stores `:status` just before the status line.
    enum StoredHeader: Equatable {
        /// No line yet: libcurl holds what it held before the transfer.
        case nothing
        /// The line at this offset of ``bytes``, named up to its first colon.
        case field(start: Int)
        /// HTTP/2's `:status`.
        case status
        /// A line the block did not keep the name of, or may have taken for what it is not.
        case unknown
    }

    init(tracksLastStored: Bool = false) {
        bytes = []
        bytes.reserveCapacity(512)
        self.tracksLastStored = tracksLastStored
    }

    /// Takes one line as libcurl delivers it (with its CRLF or LF, or neither).
    mutating func receive(_ line: UnsafeBufferPointer<UInt8>) -> Verdict {
        var count = line.count
        if count > 0, line[count - 1] == 0x0A { count -= 1 }
        if count > 0, line[count - 1] == 0x0D { count -= 1 }
        guard count > 0 else {  // the blank line that ends the block
            fieldStart = nil
            position = .ended
            return .accepted
        }
        if count >= 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
           line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/") {
            if tracksLastStored { noteStatusLine(UnsafeBufferPointer(rebasing: line[0..<count])) }
            bytes.removeAll(keepingCapacity: true)
            announcedLength = nil
            isContentEncoded = false
            fieldStart = nil
            position = .statusLine
            return .accepted
        }
        if position == .statusLine { position = .fields }
        let kept = UnsafeBufferPointer(rebasing: line[0..<count])
        // RFC 9112: a bare CR, or a NUL, inside a field is an error (it could smuggle a header).
        if Self.holdsLineBreakOrNUL(kept) {
            if tracksLastStored { lastStored = .unknown }
            return .malformed("a header line holds a bare CR, LF or NUL")
        }
        if Self.isWhiteSpace(kept[0]) {
            // With no line of its own before it, libcurl appended it to the previous transfer's.
            if tracksLastStored, lastStored == .nothing { lastStored = .unknown }
            return unfold(kept)
        }
        if tracksLastStored { lastStored = .field(start: bytes.count) }
        fieldStart = bytes.count
        bytes.append(contentsOf: kept)
        bytes.append(UInt8(ascii: "\n"))
        // Both names start with "content-" and are longer than 15 bytes with their colon; the byte
        // after the dash tells them apart, so other lines skip both checks.
        guard kept.count > Self.contentLengthName.utf8CodeUnitCount, Self.startsWithContentDash(kept) else { return .accepted }
        if kept[8] | 0x20 == UInt8(ascii: "e") {
            if Self.isEncodingLine(kept) { isContentEncoded = true }
            return .accepted
        }
        guard kept[8] | 0x20 == UInt8(ascii: "l"), let length = Self.contentLength(kept) else { return .accepted }
        // RFC 9112 section 6.3: differing Content-Length values make the framing unknowable.
        if let announced = announcedLength, announced != length {
            return .malformed("it carries two different Content-Length headers (\(announced) and \(length))")
        }
        announcedLength = length
        return .announcedLength(length)
    }

    /// A line the block takes for a status line (libcurl may have stored it as a header named
    /// `HTTP/…`: the engine checks what libcurl holds). The name of the last line goes with the lines.
    private mutating func noteStatusLine(_ line: UnsafeBufferPointer<UInt8>) {
        if line.count > 6, line[5] == UInt8(ascii: "2"), line[6] == UInt8(ascii: " ") {
            lastStored = .status
        } else if lastStored != .nothing {
            lastStored = .unknown
        }
    }

    /// The name of the line ``lastStored`` points to: its bytes up to its first colon.
    func withLastStoredName<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        guard case .field(let start) = lastStored, start < bytes.count else { return nil }
        return bytes.withUnsafeBufferPointer { all in
            // The last line: a colon, if libcurl handed it over, and its "\n".
            let line = UnsafeBufferPointer(rebasing: all[start...])
            return body(UnsafeBufferPointer(rebasing: line[..<(line.firstIndex(of: UInt8(ascii: ":")) ?? line.count - 1)]))
        }
    }

    /// The header names (lowercase) whose first line libcurl acts on by itself: the body's framing
    /// and coding, where a redirect goes, what the cookie engine stores, which challenge it answers.
    /// Unfolded, their value would say one thing while libcurl did another.
    static let actedOnByLibcurl: Set<String> = [
        "content-length", "transfer-encoding", "content-encoding", "location", "set-cookie",
        "www-authenticate", "proxy-authenticate",
    ]

    /// Joins a continuation line to the header line before it: that line's trailing white space,
    /// the line break and the continuation's leading white space become one SP.
    private mutating func unfold(_ continuation: UnsafeBufferPointer<UInt8>) -> Verdict {
        guard let start = fieldStart, let colon = bytes[start...].firstIndex(of: UInt8(ascii: ":")) else {
            return .malformed(Self.foldContinuingNothing)
        }
        let name = String(decoding: bytes[start..<colon], as: UTF8.self)
        let lowercased = String(decoding: bytes[start..<colon].map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
        if Self.actedOnByLibcurl.contains(lowercased) {
            return .malformed("its \(name) header is folded over several lines (an obsolete line folding), "
                              + "and libcurl acts on its first line alone")
        }
        bytes.removeLast()  // the "\n" ending the line continued
        while bytes.count > colon + 1, let last = bytes.last, Self.isWhiteSpace(last) { bytes.removeLast() }
        bytes.append(UInt8(ascii: " "))
        var first = 0
        while first < continuation.count, Self.isWhiteSpace(continuation[first]) { first += 1 }
        bytes.append(contentsOf: continuation[first...])
        bytes.append(UInt8(ascii: "\n"))
        return .accepted
    }

    private static func isWhiteSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// Why a response is refused whose continuation line follows no header line: the block's or,
    /// right after the first status line, libcurl's own refusal (`CURLE_BAD_FUNCTION_ARGUMENT`).
    static let foldContinuingNothing = "a header line starts with white space (an obsolete line folding) but follows "
        + "no header line it could continue"

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

    /// Whether `line` starts with "content-", the letters in any case: one 8-byte comparison with the
    /// case bit (0x20) set on the letters' bytes, which is exact because `byte | 0x20` equals a
    /// lowercase letter only when the byte is that letter in either case; the dash is compared as is.
    private static func startsWithContentDash(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard line.count >= 8, let base = line.baseAddress else { return false }
        let word = UnsafeRawPointer(base).loadUnaligned(as: UInt64.self)
        return word | UInt64(littleEndian: 0x0020_2020_2020_2020) == UInt64(littleEndian: 0x2D74_6E65_746E_6F63)
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
