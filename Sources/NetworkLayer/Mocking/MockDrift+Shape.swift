import Foundation

/// The shape of a JSON body: the kinds of value seen at each path, the keys of its objects, and one
/// shape for all the elements of an array. Values are never kept, so a shape costs its distinct
/// paths, whatever the body's size; reading refuses more than ``maximumDepth`` levels and
/// ``maximumPaths`` paths.
final class JSONShape {
    struct Kinds: OptionSet, Hashable {
        let rawValue: UInt8
        static let null = Kinds(rawValue: 1), bool = Kinds(rawValue: 2), number = Kinds(rawValue: 4)
        static let string = Kinds(rawValue: 8), array = Kinds(rawValue: 16), object = Kinds(rawValue: 32)
        static let named: [(Kinds, String)] = [(.object, "object"), (.array, "array"), (.string, "string"),
                                               (.number, "number"), (.bool, "boolean"), (.null, "null")]

        var text: String {
            let names = Self.named.filter { contains($0.0) }.map(\.1)
            return names.isEmpty ? "nothing" : names.joined(separator: " or ")
        }
    }

    var kinds: Kinds = []
    var fields: [String: JSONShape] = [:]
    var element: JSONShape?

    static let maximumDepth = 64
    static let maximumPaths = 10_000

    /// Why a body has no shape: a one-line reason, without the body's content.
    struct Failure: Error, Equatable {
        let reason: String
    }

    /// The shape of `body`, which must be one JSON value (white space around it allowed); read in
    /// place, never copied.
    static func read(_ body: Data) -> Result<JSONShape, Failure> {
        body.withUnsafeBytes { raw in
            var reader = Reader(bytes: raw.bindMemory(to: UInt8.self))
            let root = JSONShape()
            do throws(Failure) {
                reader.skipSpace()
                try reader.value(into: root, depth: 0)
                reader.skipSpace()
                guard reader.index == reader.bytes.count else { throw reader.invalid("more after the JSON value") }
                return .success(root)
            } catch {
                return .failure(error)
            }
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var paths = 0
        /// The keys (or `[]`) down to the value being read, for the reason a body is refused.
        var path: [String] = []

        func invalid(_ what: String) -> Failure {
            Failure(reason: "it is not JSON: \(what) at byte \(index)")
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func child(_ existing: JSONShape?) throws(Failure) -> JSONShape {
            if let existing { return existing }
            paths += 1
            guard paths <= JSONShape.maximumPaths else {
                throw Failure(reason: "its shape has more than \(JSONShape.maximumPaths) distinct paths")
            }
            return JSONShape()
        }

        mutating func value(into shape: JSONShape, depth: Int) throws(Failure) {
            guard index < bytes.count else { throw invalid("the body ends where a value was expected") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                try nested(depth)
                shape.kinds.insert(.object)
                index += 1
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return }
                while true {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw invalid("a key was expected") }
                    let key = try string(keeping: true)
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw invalid("':' was expected") }
                    index += 1
                    skipSpace()
                    let field = try child(shape.fields[key])
                    shape.fields[key] = field
                    path.append(key)
                    try value(into: field, depth: depth + 1)
                    path.removeLast()
                    if try endOfList(UInt8(ascii: "}")) { return }
                }
            case UInt8(ascii: "["):
                try nested(depth)
                shape.kinds.insert(.array)
                index += 1
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return }
                let element = try child(shape.element)
                shape.element = element
                path.append("[]")
                while true {
                    skipSpace()
                    try value(into: element, depth: depth + 1)
                    if try endOfList(UInt8(ascii: "]")) { break }
                }
                path.removeLast()
            case UInt8(ascii: "\""):
                _ = try string(keeping: false)
                shape.kinds.insert(.string)
            case UInt8(ascii: "t"): try literal("true"); shape.kinds.insert(.bool)
            case UInt8(ascii: "f"): try literal("false"); shape.kinds.insert(.bool)
            case UInt8(ascii: "n"): try literal("null"); shape.kinds.insert(.null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try number()
                shape.kinds.insert(.number)
            default:
                throw invalid("an unexpected character")
            }
        }

        func nested(_ depth: Int) throws(Failure) {
            guard depth < JSONShape.maximumDepth else {
                throw Failure(reason: "it nests deeper than \(JSONShape.maximumDepth) levels, at \(JSONShape.render(path))")
            }
        }

        /// After a member or element: `true` at the closing byte, `false` after a comma. One comma
        /// before the closing byte is read as the end: Foundation's JSONDecoder, which decodes the
        /// mock, reads `[1,]` and `{"a":1,}`, so the drift check must too.
        mutating func endOfList(_ closing: UInt8) throws(Failure) -> Bool {
            skipSpace()
            guard index < bytes.count else { throw invalid("the body ends inside an object or array") }
            if bytes[index] == closing { index += 1; return true }
            guard bytes[index] == UInt8(ascii: ",") else { throw invalid("',' was expected") }
            index += 1
            skipSpace()
            if index < bytes.count, bytes[index] == closing { index += 1; return true }
            return false
        }

        mutating func literal(_ word: String) throws(Failure) {
            let count = word.utf8.count
            guard bytes.count - index >= count, bytes[index..<(index + count)].elementsEqual(word.utf8) else {
                throw invalid("an unknown word")
            }
            index += count
        }

        mutating func number() throws(Failure) {
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            func digits(_ reader: inout Reader) -> Int {
                let start = reader.index
                while reader.index < reader.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(reader.bytes[reader.index]) {
                    reader.index += 1
                }
                return reader.index - start
            }
            guard digits(&self) > 0 else { throw invalid("a number without digits") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw invalid("a number without digits after '.'") }
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits(&self) > 0 else { throw invalid("a number without digits in its exponent") }
            }
        }

        /// Reads a string from its opening quote; its text only when `keeping` (a key).
        mutating func string(keeping: Bool) throws(Failure) -> String {
            index += 1
            var kept: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return keeping ? String(decoding: kept, as: UTF8.self) : ""
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { break }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "u"):
                        guard bytes.count - index >= 4, let code = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16) else {
                            throw invalid("a bad \\u escape")
                        }
                        index += 4
                        if keeping { kept += Array(String(Unicode.Scalar(code) ?? "\u{FFFD}").utf8) }
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): if keeping { kept.append(escaped) }
                    case UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        if keeping { kept.append(escaped) }
                    default: throw invalid("a bad escape")
                    }
                case 0..<0x20:
                    throw invalid("a control character in a string")
                default:
                    if keeping { kept.append(byte) }
                }
            }
            throw invalid("the body ends inside a string")
        }
    }

    // MARK: - Comparing

    /// What differs between the mock's shape and the live one's, as `path: … in the mock, … live`
    /// lines: `differences` where the live answer shows a kind the mock never did or lacks a key the
    /// mock has; `additions` for live keys the mock lacks, and kinds where the mock showed only null.
    static func compare(mock: JSONShape, live: JSONShape) -> (differences: [String], additions: [String]) {
        var differences: [String] = [], additions: [String] = []
        compare(mock, live, path: [], &differences, &additions)
        return (differences, additions)
    }

    private static func compare(_ mock: JSONShape, _ live: JSONShape, path: [String],
                                _ differences: inout [String], _ additions: inout [String]) {
        if !live.kinds.isSubset(of: mock.kinds) {
            let line = "\(render(path)): \(mock.kinds.text) in the mock, \(live.kinds.text) live"
            if mock.kinds.subtracting(.null).isEmpty { additions.append(line) } else { differences.append(line) }
        }
        if mock.kinds.contains(.object), live.kinds.contains(.object) {
            for key in Set(mock.fields.keys).union(live.fields.keys).sorted() {
                let keyPath = path + [key]
                switch (mock.fields[key], live.fields[key]) {
                case (let mocked?, let seen?): compare(mocked, seen, path: keyPath, &differences, &additions)
                case (let mocked?, nil): differences.append("\(render(keyPath)): \(mocked.kinds.text) in the mock, missing live")
                case (nil, let seen?): additions.append("\(render(keyPath)): \(seen.kinds.text) live, not in the mock")
                case (nil, nil): break
                }
            }
        }
        if let mocked = mock.element, let seen = live.element {
            compare(mocked, seen, path: path + ["[]"], &differences, &additions)
        }
    }

    /// `items[].owner.login`; the body itself is `the top level`. Keys are cut to 64 characters.
    static func render(_ path: [String]) -> String {
        guard !path.isEmpty else { return "the top level" }
        var text = ""
        for component in path {
            if component == "[]" { text += "[]"; continue }
            let key = component.count > 64 ? component.prefix(64) + "…" : component
            text += (text.isEmpty ? "" : ".") + key
        }
        return text
    }
}
