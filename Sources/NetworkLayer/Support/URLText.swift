/// Reading a request URL's text without Foundation's parser, for the URLs the library builds itself.
///
/// ``isPlainHTTP(_:)`` recognises the text `URL(string:)` takes exactly as written, so a request
/// carries the text and parses it only when someone reads its `URL` (most never do).
enum URLText {
    /// Whether `text` is `http://` or `https://`, a host of ASCII letters, digits, `-` and `.`, an
    /// optional port in 1...65535, then nothing or a `/`, `?` or `#` followed only by RFC 3986
    /// path, query and fragment characters (unreserved, sub-delims, `:`, `@`, `/`, `?`), each `%`
    /// starting an escape of two hex digits and at most one `#`.
    ///
    /// For such a text `URL(string:)` succeeds and its `absoluteString` is the text itself, with
    /// nothing re-encoded (`URLTextTests` checks that over random texts). `false` means only
    /// "not recognised": the caller then asks `URL(string:)`.
    static func isPlainHTTP(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable(isPlainHTTP(bytes:)) ?? false
    }

    /// The query of a text ``isPlainHTTP(_:)`` accepted, percent-encoded as written (after the
    /// first `?` up to the first `#`), as `URL.query(percentEncoded: true)` reads it; `nil` when
    /// it has none (a `?` after the `#` belongs to the fragment).
    static func query(of text: String) -> Substring? {
        // Offsets found in the contiguous bytes, not through the UTF-8 view.
        let found = text.utf8.withContiguousStorageIfAvailable { bytes -> Range<Int>? in
            var index = 0
            while index < bytes.count, bytes[index] != UInt8(ascii: "?") {
                if bytes[index] == UInt8(ascii: "#") { return nil }
                index += 1
            }
            guard index < bytes.count else { return nil }
            let start = index + 1
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "#") { end += 1 }
            return start..<end
        }
        let offsets: Range<Int>
        switch found {
        case .some(.some(let range)): offsets = range
        case .some(.none): return nil
        case .none:  // not contiguous (never for the text the library builds): index by index
            guard let mark = text.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
            let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) ?? text.utf8.endIndex
            guard mark < hash else { return nil }
            return text[text.utf8.index(after: mark)..<hash]
        }
        let start = text.utf8.index(text.utf8.startIndex, offsetBy: offsets.lowerBound)
        return text[start..<text.utf8.index(start, offsetBy: offsets.count)]
    }

    private static func isPlainHTTP(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index: Int
        if hasPrefix(bytes, "http://") {
            index = 7
        } else if hasPrefix(bytes, "https://") {
            index = 8
        } else {
            return false
        }
        let hostStart = index
        while index < bytes.count, hostBytes.contains(bytes[index]) { index += 1 }
        guard index > hostStart else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            let digitsStart = index
            var port = 0
            while index < bytes.count, index - digitsStart < 5, let digit = digitValue(bytes[index]) {
                port = port * 10 + digit
                index += 1
            }
            guard index > digitsStart, (1...65535).contains(port) else { return false }
        }
        guard index == bytes.count || pathStarts.contains(bytes[index]) else { return false }
        var seenFragment = false
        while index < bytes.count {
            let byte = bytes[index]
            guard restBytes.contains(byte) else { return false }
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, hexBytes.contains(bytes[index + 1]), hexBytes.contains(bytes[index + 2]) else {
                    return false
                }
                index += 3
                continue
            }
            if byte == UInt8(ascii: "#") {
                guard !seenFragment else { return false }
                seenFragment = true
            }
            index += 1
        }
        return true
    }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        return prefix.withUTF8Buffer { expected in
            expected.indices.allSatisfy { bytes[$0] == expected[$0] }
        }
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static let hostBytes = ASCIISet("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")
    private static let pathStarts = ASCIISet("/?#")
    private static let hexBytes = ASCIISet("0123456789abcdefABCDEF")
    private static let restBytes = ASCIISet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?#%")
}
