/// Text from outside (a server's headers, bodies and messages) made safe for a terminal and a log.
///
/// A control character written raw to a terminal is a command (ESC sequences move the cursor or
/// retitle the window, CR lets what follows overwrite the line, LF forges a line of the log's own),
/// and C1 characters are commands to some terminals too. The bidirectional controls (U+202A…U+202E,
/// U+2066…U+2069, U+200E, U+200F, U+061C) reorder what a terminal or a log viewer shows, so that a
/// value reads as another (CVE-2021-42574). Each becomes a visible escape as Swift writes it
/// (`\u{1B}`, `\r`, `\u{202E}`), so the log shows what the server sent without obeying it.
extension String {
    /// The text with every control character (C0, DEL, C1) and bidirectional control escaped: for
    /// one line of a log (a header name or value, a status line, an error message), which must not break.
    var escapingControlCharacters: String { escapingControlCharacters(keepingLineBreaks: false) }

    /// The text with every control character escaped but tab and line feed: for a body shown over
    /// several lines (indented, so that none of them can pass for a line of the log's own). A CR
    /// is escaped too: raw, it would let the rest of its line overwrite the indentation.
    var escapingControlCharactersInBody: String { escapingControlCharacters(keepingLineBreaks: true) }

    private func escapingControlCharacters(keepingLineBreaks: Bool) -> String {
        // Most text holds no control character: one pass over the bytes says so, and the text is returned as it is.
        guard Self.holdsControlCharacter(utf8, keepingLineBreaks: keepingLineBreaks) else { return self }
        var escaped = ""
        escaped.reserveCapacity(utf8.count + 16)
        for scalar in unicodeScalars {
            if Self.isEscaped(scalar, keepingLineBreaks: keepingLineBreaks) {
                escaped += scalar.escaped(asASCII: true)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func isEscaped(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool) -> Bool {
        let value = scalar.value
        guard value < 0x20 || (0x7F...0x9F).contains(value) else { return isBidiControl(value) }
        return !(keepingLineBreaks && (value == 0x09 || value == 0x0A))
    }

    static func isBidiControl(_ value: UInt32) -> Bool {
        (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0x200E || value == 0x200F
            || value == 0x061C
    }

    /// Whether the UTF-8 bytes hold a C0 control (but tab and LF when `keepingLineBreaks`), DEL,
    /// a C1 control (`C2 80` … `C2 9F`) or a bidirectional control (`D8 9C`, `E2 80 8E`, `E2 80 8F`,
    /// `E2 80 AA` … `E2 80 AE`, `E2 81 A6` … `E2 81 A9`).
    private static func holdsControlCharacter(_ bytes: String.UTF8View, keepingLineBreaks: Bool) -> Bool {
        var previous: UInt8 = 0, beforePrevious: UInt8 = 0
        for byte in bytes {
            if byte < 0x20 {
                if !(keepingLineBreaks && (byte == 0x09 || byte == 0x0A)) { return true }
            } else if byte == 0x7F {
                return true
            } else if byte >= 0x80, byte < 0xC0 {
                switch previous {
                case 0xC2 where byte < 0xA0: return true
                case 0xD8 where byte == 0x9C: return true
                case 0x80 where beforePrevious == 0xE2 && (byte == 0x8E || byte == 0x8F || (0xAA...0xAE).contains(byte)): return true
                case 0x81 where beforePrevious == 0xE2 && (0xA6...0xA9).contains(byte): return true
                default: break
                }
            }
            beforePrevious = previous
            previous = byte
        }
        return false
    }
}
