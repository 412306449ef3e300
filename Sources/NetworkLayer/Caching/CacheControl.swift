import Foundation

/// A `Cache-Control` field (RFC 9111 section 5.2) as a list of directives, read from any number
/// of field lines with RFC 9110's list syntax (section 5.6.1).
///
/// An element that breaks the grammar after its name is kept marked ``Directive/isMalformed``, so
/// that its most restrictive meaning applies (a malformed `no-store` still forbids storing). An
/// element without a leading token is dropped.
struct CacheControl: Sendable, Equatable {
    struct Directive: Sendable, Equatable, CustomStringConvertible {
        /// ASCII-lowercased; a token, never empty.
        let name: String
        /// The token, or the quoted string's content unescaped; `nil` when there is no `=`.
        let argument: String?
        let isMalformed: Bool

        init(name: String, argument: String? = nil, isMalformed: Bool = false) {
            self.name = name
            self.argument = argument
            self.isMalformed = isMalformed
        }

        /// The directive as a sender would write it: `name`, `name=token` or `name="quoted"`.
        var description: String {
            guard let argument else { return name }
            if !argument.isEmpty, argument.utf8.allSatisfy(CacheControl.isTokenByte) { return "\(name)=\(argument)" }
            var quoted = "\""
            for character in argument.unicodeScalars {
                if character == "\"" || character == "\\" { quoted.append("\\") }
                quoted.unicodeScalars.append(character)
            }
            return "\(name)=\(quoted)\""
        }
    }

    /// Every directive, in the order received (duplicates kept).
    let directives: [Directive]

    init(_ value: some StringProtocol) {
        var parser = Parser(bytes: Array(value.utf8))
        directives = parser.parse()
    }

    /// The directives of several field lines, as if they were one value joined by commas.
    init(lines: some Sequence<String>) {
        var all: [Directive] = []
        for line in lines {
            var parser = Parser(bytes: Array(line.utf8))
            all += parser.parse()
        }
        directives = all
    }

    init(directives: [Directive]) {
        self.directives = directives
    }

    var rendered: String {
        directives.map(\.description).joined(separator: ", ")
    }

    func first(_ name: String) -> Directive? {
        directives.first { $0.name == name }
    }

    func contains(_ name: String) -> Bool {
        directives.contains { $0.name == name }
    }

    /// A `delta-seconds` directive read from its first occurrence (RFC 9111 section 4.2.1).
    enum Seconds: Equatable, Sendable {
        case absent
        /// Present without an argument (meaningful for `max-stale` only).
        case noArgument
        /// Present, but not `1*DIGIT`.
        case invalid
        /// The value, capped at 2^31 (RFC 9111 section 1.2.2).
        case value(Int64)
    }

    func seconds(_ name: String) -> Seconds {
        guard let directive = first(name) else { return .absent }
        guard !directive.isMalformed else { return .invalid }
        guard let argument = directive.argument else { return .noArgument }
        return CacheControl.deltaSeconds(argument).map(Seconds.value) ?? .invalid
    }

    static let maximumDeltaSeconds: Int64 = 1 << 31

    /// `1*DIGIT` as a number, capped at 2^31 (RFC 9111 section 1.2.2); `nil` for anything else.
    static func deltaSeconds(_ text: some StringProtocol) -> Int64? {
        var value: Int64 = 0
        var sawDigit = false
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            sawDigit = true
            if value < maximumDeltaSeconds { value = value * 10 + Int64(byte - UInt8(ascii: "0")) }
        }
        return sawDigit ? min(value, maximumDeltaSeconds) : nil
    }

    /// The field names of a qualified `no-cache` or `private` argument (a list of tokens),
    /// lowercased; empty when the argument names none.
    static func fieldNames(in argument: String) -> [String] {
        argument.split(separator: ",").compactMap { element in
            let name = element.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else { return nil }
            return SecretNames.folded(name)
        }
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        tokenBytes.contains(byte)
    }

    private static let tokenBytes = ASCIISet("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")

    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t"), comma = UInt8(ascii: ","),
                           equals = UInt8(ascii: "="), quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")

        private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        private mutating func skipWhiteSpace() {
            while let byte = current, byte == Self.space || byte == Self.tab { position += 1 }
        }

        mutating func parse() -> [Directive] {
            var result: [Directive] = []
            while position < bytes.count {
                skipWhiteSpace()
                guard let byte = current else { break }
                if byte == Self.comma {
                    position += 1
                    continue
                }
                if let directive = element() { result.append(directive) }
            }
            return result
        }

        private mutating func element() -> Directive? {
            let nameStart = position
            while let byte = current, CacheControl.isTokenByte(byte) { position += 1 }
            guard position > nameStart else {
                skipToNextElement()
                return nil
            }
            let name = SecretNames.folded(String(decoding: bytes[nameStart..<position], as: UTF8.self))
            var argument: String?
            var malformed = false
            if current == Self.equals {
                position += 1
                if current == Self.quote {
                    let (text, terminated) = quotedString()
                    argument = text
                    malformed = !terminated
                } else {
                    let start = position
                    while let byte = current, CacheControl.isTokenByte(byte) { position += 1 }
                    argument = String(decoding: bytes[start..<position], as: UTF8.self)
                    // `name=` followed by nothing, white space or a separator: no token.
                    if position == start { malformed = true }
                }
            }
            skipWhiteSpace()
            if let byte = current, byte != Self.comma {
                malformed = true
                skipToNextElement()
            } else if current == Self.comma {
                position += 1
            }
            return Directive(name: name, argument: argument, isMalformed: malformed)
        }

        /// A quoted string's content (escapes resolved) and whether it was closed; unclosed, it runs to
        /// the end of the line.
        private mutating func quotedString() -> (String, Bool) {
            position += 1
            var content: [UInt8] = []
            while let byte = current {
                position += 1
                if byte == Self.quote { return (String(decoding: content, as: UTF8.self), true) }
                if byte == Self.backslash, let escaped = current {
                    content.append(escaped)
                    position += 1
                } else {
                    content.append(byte)
                }
            }
            return (String(decoding: content, as: UTF8.self), false)
        }

        private mutating func skipToNextElement() {
            while let byte = current {
                if byte == Self.comma {
                    position += 1
                    return
                }
                if byte == Self.quote {
                    _ = quotedString()
                } else {
                    position += 1
                }
            }
        }
    }
}
