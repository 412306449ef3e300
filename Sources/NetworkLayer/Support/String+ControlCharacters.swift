/// Text from outside (a server's headers, bodies and messages) made safe for a terminal and a log.
///
/// A control character written raw to a terminal is a command (ESC sequences move the cursor or
/// retitle the window, CR lets what follows overwrite the line, LF forges a line of the log's own),
/// and C1 characters are commands to some terminals too. Each becomes a visible escape as Swift
/// writes it (`\u{1B}`, `\r`), so the log shows what the server sent without obeying it.
extension String {
    /// The text with every control character (C0, DEL, C1) escaped: for one line of a log (a
    /// header name or value, a status line, an error message), which must not break.
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
        guard value < 0x20 || (0x7F...0x9F).contains(value) else { return false }
        return !(keepingLineBreaks && (value == 0x09 || value == 0x0A))
    }

    /// Whether the UTF-8 bytes hold a C0 control (but tab and LF when `keepingLineBreaks`), DEL,
    /// or a C1 control (`C2 80` … `C2 9F`).
    private static func holdsControlCharacter(_ bytes: String.UTF8View, keepingLineBreaks: Bool) -> Bool {
        var afterC2 = false
        for byte in bytes {
            if byte < 0x20 {
                if !(keepingLineBreaks && (byte == 0x09 || byte == 0x0A)) { return true }
            } else if byte == 0x7F || (afterC2 && byte < 0xA0 && byte >= 0x80) {
                return true
            }
            afterC2 = byte == 0xC2
        }
        return false
    }
}
