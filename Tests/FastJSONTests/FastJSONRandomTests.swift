import Foundation
import Testing
import TestScheduling
@testable import FastJSON

// Randomized differential tests: documents generated from a seed (so a failure reproduces), in
// random formatting, key order and number spelling, with unknown keys and at most one defect
// each, decoded by both decoders.
//
// At most one defect: with two failing entries in one object, Foundation reports whichever its
// dictionary order reaches first, which varies from run to run.

private typealias Diff = JSONDifferential

// MARK: - The schema

private struct RandomRecord: Codable, Equatable {
    var id: Int
    var code: Int8
    var count: UInt16
    var big: Int64?
    var huge: UInt64
    var ratio: Double
    var ratio32: Float?
    var name: String
    var note: String?
    var flag: Bool
    var tags: [String]
    var scores: [Double]?
    var matrix: [[Int]]
    var child: RandomChild?
    var children: [RandomChild]
    var labels: [String: Int]
    var byID: [Int: String]?
    var status: RandomStatus
    var shape: RandomShape?
    var when: Date?
    var link: URL?
    var blob: Data?
    var amount: Decimal?
}

private struct RandomChild: Codable, Equatable {
    var name: String
    var value: Int?
    var flags: [Bool]
}

private enum RandomStatus: String, Codable, Equatable {
    case active, inactive, pending = "pending-review"
}

private enum RandomShape: Codable, Equatable {
    case point
    case circle(radius: Double)
    case line(from: Int, to: Int)
}

// MARK: - JSON trees, written with random formatting

private indirect enum Tree {
    case literal(String)          // a number, true, false, null, or anything written verbatim
    case string(String)           // the content between the quotes, already escaped
    case array([Tree])
    case object([(key: String, value: Tree)]) // keys already escaped

    func write(_ out: inout String, _ rng: inout SeededGenerator) {
        func space() {
            if Int.random(in: 0..<6, using: &rng) == 0 { out += [" ", "\n", "\t", "\r\n", "  "].randomElement(using: &rng)! }
        }
        switch self {
        case .literal(let text): out += text
        case .string(let content): out += "\"\(content)\""
        case .array(let elements):
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                space(); element.write(&out, &rng); space()
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                space(); out += "\"\(member.key)\""; space(); out += ":"; space()
                member.value.write(&out, &rng); space()
            }
            out += "}"
        }
    }
}

private struct DocumentGenerator {
    var rng: SeededGenerator

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items.randomElement(using: &rng)! }

    // Scalars

    mutating func integer<T: FixedWidthInteger>(_: T.Type) -> Tree {
        let value: T = chance(20) ? pick([T.min, T.max, 0, 1, T.max - 1]) : T.random(in: T.min...T.max, using: &rng)
        if chance(5), value != T.min, value.magnitude < 1 << 50 {
            return .literal(pick(["\(value).0", "\(value)e0", "\(value)0e-1"])) // forms Foundation accepts for integers
        }
        return .literal("\(value)")
    }

    mutating func double(float: Bool = false) -> Tree {
        let value: Double
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: value = pick([0, -0.0, 1, -1, 0.1, 1e-7, 123456789.125, float ? 3.4e38 : 1.7976931348623157e308,
                              float ? 1.4e-45 : Double.leastNonzeroMagnitude, 2.5e-10])
        case 1: value = Double(Int.random(in: -1_000_000...1_000_000, using: &rng))
        case 2: value = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng) & 0x7FEF_FFFF_FFFF_FFFF)
        default: value = Double.random(in: -1e6...1e6, using: &rng)
        }
        let shown = float ? Double(Float(value)) : value
        guard shown.isFinite else { return .literal("0") }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return .literal(String(format: "%.17g", shown))
        case 1: return .literal(String(format: "%.6e", shown))
        case 2: return .literal(shown.rounded() == shown && shown.magnitude < 1e15 ? "\(Int64(shown))" : "\(shown)")
        default: return .literal("\(shown)")
        }
    }

    /// The escaped content of a random string.
    mutating func stringContent() -> String {
        var content = ""
        for _ in 0..<Int.random(in: 0..<14, using: &rng) {
            switch Int.random(in: 0..<12, using: &rng) {
            case 0: content += pick(["\\n", "\\t", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r"])
            case 1: content += pick(["\\u00e9", "\\u00E9", "\\u20ac", "\\u0000", "\\ud83d\\ude00", "\\uD834\\uDD1E", "\\u0041"])
            case 2: content += pick(["é", "😀", "日本", "ß", "\u{7F}", "e\u{301}", "Ω"])
            default: content += String(UnicodeScalar(UInt8.random(in: 0x20...0x7E, using: &rng)))
                .replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            }
        }
        return content
    }

    /// Any JSON value, for unknown keys and for `AnyJSONValue` documents; `bad` allows one value
    /// that does not decode (a malformed number or string).
    mutating func anyValue(depth: Int, bad: inout Bool) -> Tree {
        let kind = Int.random(in: 0..<(depth > 3 ? 6 : 9), using: &rng)
        if bad, kind < 6, chance(30) {
            bad = false
            return pick([.literal("01"), .literal("1."), .literal("-"), .literal("1e400"), .string("\\x"), .string("\\ud800"),
                         .string("\u{1}"), .literal("1-2"), .literal("-0.0e"), .string("\\uD800\\u0041")])
        }
        switch kind {
        case 0: return .literal("null")
        case 1: return .literal(pick(["true", "false"]))
        case 2: return integer(Int64.self)
        case 3: return double()
        case 4: return .literal(pick(["99999999999999999999999", "1e300", "-0", "0.5", "1E2", "-12.5e-3", "123456789012345678"]))
        case 5: return .string(stringContent())
        case 6, 7:
            return .array((0..<Int.random(in: 0..<5, using: &rng)).map { _ in anyValue(depth: depth + 1, bad: &bad) })
        default:
            var members: [(key: String, value: Tree)] = []
            for _ in 0..<Int.random(in: 0..<5, using: &rng) {
                members.append((key: chance(80) ? "k\(Int.random(in: 0..<6, using: &rng))" : stringContent(),
                                value: anyValue(depth: depth + 1, bad: &bad)))
            }
            return .object(members)
        }
    }

    // The schema

    mutating func child() -> Tree {
        var members: [(key: String, value: Tree)] = [(key: "name", value: .string(stringContent())),
                                                     (key: "flags", value: .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in .literal(pick(["true", "false"])) }))]
        if chance(60) { members.append((key: "value", value: chance(20) ? .literal("null") : integer(Int32.self))) }
        return .object(members)
    }

    mutating func record() -> Tree {
        var members: [(key: String, value: Tree)] = [
            (key: "id", value: integer(Int.self)),
            (key: "code", value: integer(Int8.self)),
            (key: "count", value: integer(UInt16.self)),
            (key: "huge", value: integer(UInt64.self)),
            (key: "ratio", value: double()),
            (key: "name", value: .string(stringContent())),
            (key: "flag", value: .literal(pick(["true", "false"]))),
            (key: "tags", value: .array((0..<Int.random(in: 0..<5, using: &rng)).map { _ in .string(stringContent()) })),
            (key: "matrix", value: .array((0..<Int.random(in: 0..<3, using: &rng)).map { _ in
                .array((0..<Int.random(in: 0..<3, using: &rng)).map { _ in integer(Int16.self) }) })),
            (key: "children", value: .array((0..<Int.random(in: 0..<3, using: &rng)).map { _ in child() })),
            (key: "labels", value: .object((0..<Int.random(in: 0..<4, using: &rng)).map { i in (key: "l\(i)\(stringContent())", value: integer(Int.self)) })),
            (key: "status", value: .string(pick(["active", "inactive", "pending-review"]))),
        ]
        for key in ["big", "ratio32", "note", "scores", "child", "byID", "shape", "when", "link", "blob", "amount"] where chance(70) {
            if chance(15) {
                members.append((key: key, value: .literal("null")))
                continue
            }
            let value: Tree
            switch key {
            case "big": value = integer(Int64.self)
            case "ratio32": value = double(float: true)
            case "note": value = .string(stringContent())
            case "scores": value = .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in double() })
            case "child": value = child()
            case "byID": value = .object((0..<Int.random(in: 0..<4, using: &rng)).map { _ in
                (key: "\(Int.random(in: -99...99, using: &rng))", value: .string(stringContent())) })
            case "shape":
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: value = .object([(key: "point", value: .object([]))])
                case 1: value = .object([(key: "circle", value: .object([(key: "radius", value: double())]))])
                default: value = .object([(key: "line", value: .object([(key: "from", value: integer(Int.self)), (key: "to", value: integer(Int.self))]))])
                }
            case "when": value = double()
            case "link": value = .string(pick(["https://example.com/a?b=1", "relative/path", "http:\\/\\/x.org", "mailto:a@b.c", "https://ex%20ample.com"]))
            case "blob":
                let bytes = (0..<Int.random(in: 0..<12, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                let base64 = Data(bytes).base64EncodedString()
                value = .string(chance(20) ? base64.replacingOccurrences(of: "/", with: "\\/") : base64)
            default: value = .literal(pick(["0", "1.10", "-12345.6789", "1e-5", "3.14159265358979323846", "\(Int.random(in: -999...999, using: &rng))"]))
            }
            members.append((key: key, value: value))
        }
        // Unknown keys, with values that are never decoded (malformed ones allowed).
        for _ in 0..<Int.random(in: 0..<3, using: &rng) {
            var bad = true
            members.insert((key: "extra\(Int.random(in: 0..<1000, using: &rng))", value: anyValue(depth: 1, bad: &bad)),
                           at: Int.random(in: 0...members.count, using: &rng))
        }
        // Keys written with escapes, and duplicates (the first wins).
        if chance(10), let i = members.indices.randomElement(using: &rng), let first = members[i].key.unicodeScalars.first {
            members[i].key = String(format: "\\u%04x", first.value) + members[i].key.unicodeScalars.dropFirst().map(String.init).joined()
        }
        if chance(10), let duplicate = members.randomElement(using: &rng) {
            members.append((key: duplicate.key, value: .literal("\"a duplicate\"")))
        }
        members.shuffle(using: &rng)
        return .object(members)
    }

    /// One defect in a schema document, or none.
    mutating func withDefect(_ tree: Tree) -> (tree: Tree, text: String?) {
        guard case .object(var members) = tree, chance(45) else { return (tree, nil) }
        let required = ["id", "code", "count", "huge", "ratio", "name", "flag", "tags", "matrix", "children", "labels", "status"]
        let field = pick(required)
        guard let i = members.firstIndex(where: { $0.key == field }) else { return (tree, nil) }
        switch Int.random(in: 0..<9, using: &rng) {
        case 0: members.remove(at: i)
        case 1: members[i].value = .literal("null")
        case 2: members[i].value = pick([.literal("1"), .string("1"), .literal("true"), .array([]), .object([])])
        case 3: members[i].value = pick([.literal("01"), .literal("1."), .literal("-"), .literal("1e400"), .literal("99999999999999999999")])
        case 4: members[i].value = pick([.string("\\x"), .string("\\ud800"), .string("a\u{1}b"), .string("\\u12"), .string("\\uZZZZ")])
        case 5: members[i].value = .literal(pick(["300", "-1", "65536", "-129", "1.5", "18446744073709551616"]))
        default:
            // Damage the text itself: truncate, add garbage, or drop a byte.
            var text = ""
            Tree.object(members).write(&text, &rng)
            var bytes = Array(text.utf8)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &rng)))
            case 1: bytes += Array(pick([" x", "]", "}", ",", " 1", "\u{0}"]).utf8)
            default: bytes.remove(at: Int.random(in: 0..<bytes.count, using: &rng))
            }
            return (tree, String(decoding: bytes, as: UTF8.self))
        }
        return (.object(members), nil)
    }
}

@Suite("FastJSONDecoder matches JSONDecoder on random documents", .sharing)
struct FastJSONRandomTests {
    @Test("Random records, valid and with one defect each", arguments: 0..<4)
    func records(batch: UInt64) {
        var generator = DocumentGenerator(rng: SeededGenerator(seed: 0x5EED_0000 + batch))
        var decoded = 0
        var errors: Set<String> = []
        for _ in 0..<100 {
            let (tree, damaged) = generator.withDefect(generator.record())
            var text = ""
            tree.write(&text, &generator.rng)
            let data = Data((damaged ?? text).utf8)
            switch Diff.expectSame(RandomRecord.self, data) {
            case .value: decoded += 1
            case .error(let error): errors.insert(String(error.prefix { $0 != " " && $0 != "(" }))
            }
            Diff.expectSame([RandomRecord].self, Data(("[" + (damaged ?? text) + "]").utf8))
        }
        // The documents exercise both outcomes, and every kind of error.
        #expect(decoded >= 40)
        #expect(errors.isSuperset(of: ["typeMismatch", "valueNotFound", "keyNotFound", "dataCorrupted"]), "\(errors)")
    }

    @Test("Random JSON of any shape, decoded by probing containers and types", arguments: 0..<2)
    func anyShape(batch: UInt64) {
        var generator = DocumentGenerator(rng: SeededGenerator(seed: 0xA11_0000 + batch))
        var decoded = 0
        for _ in 0..<100 {
            var bad = generator.chance(30)
            let tree = generator.anyValue(depth: 0, bad: &bad)
            var text = ""
            tree.write(&text, &generator.rng)
            if case .value = Diff.expectSame(AnyJSONValue.self, text) { decoded += 1 }
        }
        #expect(decoded >= 50 && decoded < 100, "\(decoded) of 100 decoded")
    }

    @Test("The benchmark's fixture: 100 KB of items")
    func benchmarkFixture() {
        struct Item: Decodable, Equatable {
            let id: Int
            let name: String
            let price: Double
            let active: Bool
            let tags: [String]
        }
        // As Benchmarks/run.py writes it.
        var items: [String] = []
        var length = 2
        while length < 100 * 1024 {
            let n = items.count
            let price = ((1 + Double(n * 7 % 1000) / 4) * 100).rounded() / 100
            let tags = n % 2 == 1 ? #"["red","small"]"# : #"["blue"]"#
            let item = #"{"id":\#(n),"name":"item-\#(String(format: "%05d", n))","price":\#(price),"active":\#(n % 3 != 0),"tags":\#(tags)}"#
            length += item.utf8.count + (items.isEmpty ? 0 : 1)
            items.append(item)
        }
        let outcome = Diff.expectSame([Item].self, "[" + items.joined(separator: ",") + "]")
        guard case .value(let decoded) = outcome else {
            Issue.record("the fixture did not decode: \(outcome)")
            return
        }
        #expect(decoded.count == items.count)
    }
}
