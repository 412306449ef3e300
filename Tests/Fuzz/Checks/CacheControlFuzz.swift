import Foundation
@testable import NetworkLayer

/// `Cache-Control` parsing (RFC 9111 section 5.2, RFC 9110 list syntax): any bytes, cut into field
/// lines at points the input chooses.
///
/// Checked: the parser gives exactly the directives a separate, plainly written model of the
/// grammar gives (tokens, quoted strings with escapes, white space, commas; malformed elements keep
/// their name and are marked); output is bounded (at most one directive per comma plus one per
/// line, names non-empty lowercase tokens, no argument longer than its line); the well-formed
/// directives written back (``CacheControl/rendered``) parse to themselves; lines joined with
/// `", "` parse as the lines do when no line has a quote; delta-seconds are within 0...2^31.
enum CacheControlFuzz {
    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        let cuts = bytes.choice(4)
        let rest = bytes.rest()
        // Up to three cut points split the rest into field lines.
        var lines: [[UInt8]] = []
        var start = 0
        for index in 0..<cuts {
            let end = rest.isEmpty ? 0 : min(rest.count, start + Int(rest[(index * 7) % rest.count]) % 64)
            lines.append(Array(rest[start..<max(start, end)]))
            start = max(start, end)
        }
        lines.append(Array(rest[start...]))
        let texts = lines.map { String(decoding: $0, as: UTF8.self) }

        let parsed = CacheControl(lines: texts)
        let expected = texts.flatMap { Model.parse(Array($0.utf8)) }
        try require(parsed.directives == expected,
                    "parsed \(parsed.directives) but the model gives \(expected) for \(texts.map(\.debugDescription))")

        let commas = texts.reduce(0) { $0 + $1.utf8.filter { $0 == UInt8(ascii: ",") }.count }
        try require(parsed.directives.count <= commas + texts.count, "\(parsed.directives.count) directives from \(commas) commas")
        for directive in parsed.directives {
            try require(!directive.name.isEmpty && directive.name.utf8.allSatisfy { CacheControl.isTokenByte($0) && !(65...90).contains($0) },
                        "name \(directive.name.debugDescription)")
            try require((directive.argument?.utf8.count ?? 0) <= texts.map { $0.utf8.count }.max() ?? 0, "argument longer than its line")
        }

        let wellFormed = parsed.directives.filter { !$0.isMalformed }
        let rendered = CacheControl(directives: wellFormed).rendered
        try require(CacheControl(rendered).directives == wellFormed, "\(wellFormed) rendered as \(rendered.debugDescription) parses differently")

        // By byte: a quote followed by a combining mark is one Character, which a Character search
        // for `"` does not find (a found input: `a="\u{352}…`).
        if !lines.contains(where: { $0.contains(UInt8(ascii: "\"")) }) {
            try require(CacheControl(texts.joined(separator: ", ")).directives == parsed.directives, "joining the lines changed the directives")
        }
        for name in ["max-age", "max-stale", "min-fresh", "stale-if-error", "s-maxage"] {
            if case .value(let seconds) = parsed.seconds(name) {
                try require(seconds >= 0 && seconds <= CacheControl.maximumDeltaSeconds, "\(name) = \(seconds)")
            }
        }
    }

    /// The grammar written out plainly: the line as tokens first, then elements of tokens.
    private enum Model {
        enum Piece: Equatable {
            case token(String)
            /// Content with escapes resolved, and whether the closing quote came.
            case quoted(String, closed: Bool)
            case space, comma, equals, other
        }

        static func isTchar(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
        }

        static func pieces(_ bytes: [UInt8]) -> [Piece] {
            var result: [Piece] = []
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if isTchar(byte) {
                    var end = index
                    while end < bytes.count, isTchar(bytes[end]) { end += 1 }
                    result.append(.token(String(decoding: bytes[index..<end], as: UTF8.self)))
                    index = end
                } else if byte == UInt8(ascii: "\"") {
                    var content: [UInt8] = []
                    var closed = false
                    index += 1
                    while index < bytes.count {
                        let inner = bytes[index]
                        index += 1
                        if inner == UInt8(ascii: "\"") { closed = true; break }
                        // A backslash escapes the next byte; one at the very end stands for itself.
                        if inner == UInt8(ascii: "\\"), index < bytes.count {
                            content.append(bytes[index])
                            index += 1
                        } else {
                            content.append(inner)
                        }
                    }
                    result.append(.quoted(String(decoding: content, as: UTF8.self), closed: closed))
                } else {
                    switch byte {
                    case UInt8(ascii: " "), UInt8(ascii: "\t"):
                        if result.last != .space { result.append(.space) }
                    case UInt8(ascii: ","): result.append(.comma)
                    case UInt8(ascii: "="): result.append(.equals)
                    default: result.append(.other)
                    }
                    index += 1
                }
            }
            return result
        }

        static func parse(_ bytes: [UInt8]) -> [CacheControl.Directive] {
            var elements: [[Piece]] = [[]]
            for piece in pieces(bytes) {
                if piece == .comma { elements.append([]) } else { elements[elements.count - 1].append(piece) }
            }
            return elements.compactMap { element in
                var rest = element[...]
                while rest.first == .space { rest = rest.dropFirst() }
                guard case .token(let rawName)? = rest.first else { return nil }
                let name = String(decoding: rawName.utf8.map { (65...90).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
                rest = rest.dropFirst()
                var argument: String?
                var malformed = false
                if rest.first == .equals {
                    rest = rest.dropFirst()
                    switch rest.first {
                    case .quoted(let content, let closed)?:
                        argument = content
                        malformed = !closed
                        rest = rest.dropFirst()
                    case .token(let token)?:
                        argument = token
                        rest = rest.dropFirst()
                    default:
                        argument = ""
                        malformed = true
                    }
                }
                while rest.first == .space { rest = rest.dropFirst() }
                if !rest.isEmpty { malformed = true }
                return CacheControl.Directive(name: name, argument: argument, isMalformed: malformed)
            }
        }
    }
}
