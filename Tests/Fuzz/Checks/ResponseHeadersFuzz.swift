import Foundation
@testable import NetworkLayer

/// Response-header parsing: the input's lines (split after each `\n`, as libcurl hands them over)
/// go through `ResponseHeaderBlock` as a transfer feeds them, then `ResponseHeaders` reads the block.
///
/// Checked against what RFC 9112 says, written out plainly here: a line is refused exactly when it
/// holds a CR, LF or NUL before its line ending; a `Content-Length` is a value of decimal digits
/// with optional spaces or tabs around it, and a second, different one refuses the response; the
/// kept block holds exactly the kept lines; the body counts as compressed exactly when the latest
/// response names a `Content-Encoding` other than `identity`. A line starting with SP or HTAB
/// continues the header line before it in its block (RFC 9112 section 5.2): that line's trailing
/// white space, the fold and the continuation's leading white space become one SP; it is refused
/// when there is no such line (right after a status line, after the blank line, after a line
/// without a colon) or when that header is one libcurl reads by its first line alone. So no kept
/// line, and no name, ever starts with white space, and a folded value reads as the unfolded one.
/// Then the headers read the same whichever way they are asked (`value(for:)` in any case of the
/// name, before and after the dictionary is built, `bytes(for:)`), and `values(for:)` gives each
/// line of that name apart, in order. After every line, the block names the line libcurl stored last
/// as libcurl's rules give it: the latest line that is neither blank, a status line nor a
/// continuation, by its name up to its first colon; `:status` after an HTTP/2 status line;
/// nothing before any line; unknown once a status line drops a stored line's name, a continuation
/// continues none of the transfer's, or a line holds a bare CR, LF or NUL.
enum ResponseHeadersFuzz {
    /// The headers whose fold is refused, lowercase: libcurl acts on their first line alone.
    static let readByLibcurl = ["content-length", "transfer-encoding", "content-encoding", "location", "set-cookie",
                                "www-authenticate", "proxy-authenticate"]

    static func check(_ data: Data) throws(FuzzFailure) {
        var block = ResponseHeaderBlock(tracksLastStored: true)
        var stored = Stored.nothing
        var expectedLines: [[UInt8]] = []
        var expectedLength: Int?
        var expectedEncoded = false
        // Whether the latest kept line (the last of `expectedLines`) is one a continuation extends.
        var canContinue = false
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        for line in lines(of: Array(data)) {
            let verdict = line.withUnsafeBufferPointer { block.receive($0) }
            var content = line
            if content.last == 0x0A { content.removeLast() }
            if content.last == 0x0D { content.removeLast() }
            stored = stored.after(content)
            try require(Stored(block) == stored, "after \(show(line)) the block names \(Stored(block)) as stored last, not \(stored)")
            if content.isEmpty {
                try require(verdict == .accepted, "the blank line \(show(line)) gave \(verdict)")
                canContinue = false
                continue
            }
            if content.starts(with: Array("HTTP/".utf8)) {
                try require(verdict == .accepted, "the status line \(show(line)) gave \(verdict)")
                expectedLines = []
                expectedLength = nil
                expectedEncoded = false
                canContinue = false
                continue
            }
            if content.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
                try require(verdict == .malformed("a header line holds a bare CR, LF or NUL"),
                            "the line \(show(line)), with a bare CR, LF or NUL, gave \(verdict)")
                return
            }
            if let first = content.first, isSpace(first) {
                guard canContinue, var continued = expectedLines.last,
                      let colon = continued.firstIndex(of: UInt8(ascii: ":")) else {
                    try require(verdict == .malformed(ResponseHeaderBlock.foldContinuingNothing),
                                "the continuation line \(show(line)), with no header line to continue, gave \(verdict)")
                    return
                }
                let name = Array(continued[..<colon])
                if readByLibcurl.contains(String(decoding: lowered(name), as: UTF8.self)) {
                    let expected = "its \(String(decoding: name, as: UTF8.self)) header is folded over several lines "
                        + "(an obsolete line folding), and libcurl acts on its first line alone"
                    try require(verdict == .malformed(expected), "the fold \(show(line)) of \(show(name)) gave \(verdict)")
                    return
                }
                while let last = continued.last, isSpace(last) { continued.removeLast() }
                continued.append(0x20)
                continued += content.drop(while: isSpace)
                expectedLines[expectedLines.count - 1] = continued
                try require(verdict == .accepted, "the continuation line \(show(line)) gave \(verdict)")
                continue
            }
            expectedLines.append(content)
            canContinue = true
            if isEncoding(content) { expectedEncoded = true }
            if let length = contentLength(content) {
                if let announced = expectedLength, announced != length {
                    try require(verdict == .malformed("it carries two different Content-Length headers (\(announced) and \(length))"),
                                "a second Content-Length \(show(line)) after \(announced) gave \(verdict)")
                    return
                }
                expectedLength = length
                try require(verdict == .announcedLength(length), "the Content-Length line \(show(line)) gave \(verdict), not \(length)")
            } else {
                try require(verdict == .accepted, "the line \(show(line)) gave \(verdict)")
            }
        }
        let kept: [UInt8] = expectedLines.flatMap { line -> [UInt8] in line + [0x0A] }
        try require(block.bytes == kept, "the block kept \(show(block.bytes)), not \(show(kept))")
        try require(!expectedLines.contains { $0.first.map(isSpace) == true }, "a kept line starts with white space: \(show(kept))")
        try require(block.announcedLength == expectedLength,
                    "the block remembers the length \(String(describing: block.announcedLength)), not \(String(describing: expectedLength))")
        try require(block.isContentEncoded == expectedEncoded,
                    "the block says the body is \(block.isContentEncoded ? "" : "not ")compressed, for \(show(kept))")
        try readConsistently(ResponseHeaders(raw: block.bytes), lines: expectedLines)
    }

    /// `value(for:)` gives every line of that name (ASCII case ignored), joined with ", ", before
    /// and after `dictionary` was built; `dictionary` has every line under the name as it was sent.
    private static func readConsistently(_ headers: ResponseHeaders, lines: [[UInt8]]) throws(FuzzFailure) {
        var fields: [(name: [UInt8], value: [UInt8])] = []
        for line in lines {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
            var value = line[(colon + 1)...]
            while let first = value.first, isSpace(first) { value = value.dropFirst() }
            while let last = value.last, isSpace(last) { value = value.dropLast() }
            fields.append((Array(line[..<colon]), Array(value)))
        }
        func expected(_ name: String) -> String? {
            let values = fields.filter { lowered($0.name) == lowered(Array(name.utf8)) }.map { String(decoding: $0.value, as: UTF8.self) }
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }
        // The names as a caller can spell them: valid UTF-8, as sent, in lower and in upper case.
        var spellings = Set<String>()
        for field in fields {
            guard let name = String(validating: field.name, as: UTF8.self) else { continue }
            spellings.formUnion([name, String(decoding: lowered(field.name), as: UTF8.self), name.uppercased()])
        }
        func expectedLines(_ name: String) -> [String] {
            fields.filter { lowered($0.name) == lowered(Array(name.utf8)) }.map { String(decoding: $0.value, as: UTF8.self) }
        }
        func expectedBytes(_ name: String) -> [UInt8]? {
            let values = fields.filter { lowered($0.name) == lowered(Array(name.utf8)) }.map(\.value)
            return values.isEmpty ? nil : Array(values.joined(separator: Array(", ".utf8)))
        }
        for field in fields {
            try require(field.name.first.map { $0 == 0x20 || $0 == 0x09 } != true, "the name \(show(field.name)) starts with white space")
        }
        for spelling in spellings {
            try require(headers.bytes(for: spelling) == expectedBytes(spelling),
                        "bytes(for: \(spelling.debugDescription)) is \(String(describing: headers.bytes(for: spelling))), not \(String(describing: expectedBytes(spelling)))")
            try require(headers.value(for: spelling) == expected(spelling),
                        "value(for: \(spelling.debugDescription)) is \(String(describing: headers.value(for: spelling))), not \(String(describing: expected(spelling)))")
            try require(headers.values(for: spelling) == expectedLines(spelling),
                        "values(for: \(spelling.debugDescription)) is \(headers.values(for: spelling)), not \(expectedLines(spelling))")
        }
        var byName: [String: [String]] = [:]
        for field in fields { byName[String(decoding: field.name, as: UTF8.self), default: []].append(String(decoding: field.value, as: UTF8.self)) }
        try require(headers.valuesByName == byName, "valuesByName is \(headers.valuesByName), not \(byName)")
        var exact: [String: String] = [:]
        for field in fields {
            let name = String(decoding: field.name, as: UTF8.self)
            let value = String(decoding: field.value, as: UTF8.self)
            exact[name] = exact[name].map { $0 + ", " + value } ?? value
        }
        try require(headers.dictionary == exact, "the dictionary is \(headers.dictionary), not \(exact)")
        for spelling in spellings {
            try require(headers.value(for: spelling) == expected(spelling),
                        "once the dictionary is built, value(for: \(spelling.debugDescription)) is \(String(describing: headers.value(for: spelling))), not \(String(describing: expected(spelling)))")
        }
    }

    /// The line libcurl stored last, as the fuzz check's rules give it.
    enum Stored: Equatable, CustomStringConvertible {
        case nothing, status, unknown
        case field([UInt8])

        init(_ block: ResponseHeaderBlock) {
            switch block.lastStored {
            case .nothing: self = .nothing
            case .status: self = .status
            case .unknown: self = .unknown
            case .field: self = block.withLastStoredName { .field(Array($0)) } ?? .unknown
            }
        }

        /// After `content`, a line without its line ending.
        func after(_ content: [UInt8]) -> Stored {
            if content.isEmpty { return self }
            if content.starts(with: Array("HTTP/".utf8)) {
                if content.starts(with: Array("HTTP/2 ".utf8)) { return .status }
                return self == .nothing ? .nothing : .unknown
            }
            if content.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) { return .unknown }
            if content[0] == 0x20 || content[0] == 0x09 { return self == .nothing ? .unknown : self }
            return .field(Array(content.prefix { $0 != UInt8(ascii: ":") }))
        }

        var description: String {
            switch self {
            case .nothing: "nothing"
            case .status: ":status"
            case .unknown: "unknown"
            case .field(let name): "the line named \(ResponseHeadersFuzz.show(name))"
            }
        }
    }

    /// The input cut after each LF, as libcurl's header callback delivers lines.
    private static func lines(of bytes: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
            lines.append(Array(bytes[start..<end]))
            start = end
        }
        return lines
    }

    /// RFC 9110 section 8.4: `Content-Encoding` (any case), a colon, a value other than `identity`.
    private static func isEncoding(_ line: [UInt8]) -> Bool {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
              lowered(Array(line[..<colon])) == Array("content-encoding".utf8) else { return false }
        let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        return !value.isEmpty && lowered(Array(value.utf8)) != Array("identity".utf8)
    }

    /// RFC 9110 section 8.6: `Content-Length` (any case), a colon, digits with optional white space around.
    private static func contentLength(_ line: [UInt8]) -> Int? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
              lowered(Array(line[..<colon])) == Array("content-length".utf8) else { return nil }
        let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        guard !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int(value)
    }

    /// Header names compare in ASCII case only (RFC 9110: they are tokens).
    private static func lowered(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
    }

    private static func show(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(200), as: UTF8.self).debugDescription
    }
}
