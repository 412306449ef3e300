import Foundation
@testable import NetworkLayer

/// A parameter value as the caller wrote it, with what it must become: built from fuzzer bytes,
/// turned into the `any Sendable` a `params` dictionary holds, and asked what its query pairs and
/// JSON must be. Written independently of `ParameterValue`, from the documented behaviour.
indirect enum ParameterModel: CustomStringConvertible {
    case string(String)
    case character(Character)
    case int(Int)
    case int8(Int8)
    case uint64(UInt64)
    case double(Double)
    case float(Float)
    case bool(Bool)
    case decimal(Decimal)
    case date(Date)
    case url(URL)
    case uuid(UUID)
    /// `NSNull()`.
    case null
    /// An `Optional` that is `nil`.
    case none
    case json(JSONValue)
    case array([ParameterModel])
    case object([String: ParameterModel])

    // MARK: Building

    private static let alphabet: [String] = [
        "a", "Z", "7", " ", "&", "=", "+", "%", "#", "?", "/", ",", "[", "]", ";", ":", "\"", "\\", "'",
        "\n", "\t", "\r", "\u{0}", "\u{1F}", "\u{7F}", "é", "e\u{301}", "ß", "\u{212A}", "😀", "\u{FEFF}", "\u{2028}", "%41",
    ]

    static func text(from bytes: inout FuzzBytes) -> String {
        (0..<bytes.choice(8)).map { _ in alphabet[bytes.choice(alphabet.count)] }.joined()
    }

    static func members(from bytes: inout FuzzBytes, depth: Int) -> [String: ParameterModel] {
        var members: [String: ParameterModel] = [:]
        for _ in 0..<bytes.choice(depth == 0 ? 8 : 5) {
            members[text(from: &bytes)] = value(from: &bytes, depth: depth + 1)
        }
        return members
    }

    static func value(from bytes: inout FuzzBytes, depth: Int) -> ParameterModel {
        let nested = depth < 4
        switch bytes.choice(nested ? 19 : 16) {
        case 0: return .string(text(from: &bytes))
        case 1: return .character(alphabet[bytes.choice(alphabet.count)].first ?? "x")
        case 2: return .int(Int(truncatingIfNeeded: bytes.word()))
        case 3: return .int8(Int8(truncatingIfNeeded: bytes.byte()))
        case 4: return .uint64(bytes.word())
        case 5: return .double(Double(bitPattern: bytes.word()))
        case 6: return .double([0, -0.0, 0.1, 1e15, -1e15, 1e300, .leastNonzeroMagnitude, 9_007_199_254_740_992, .infinity, .nan][bytes.choice(10)])
        case 7: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: bytes.word())))
        case 8: return .bool(bytes.bool())
        case 9:
            let digits = String(bytes.take(1 + bytes.choice(30)).map { Character(UnicodeScalar(UInt8(ascii: "0") + $0 % 10)) })
            let text = (bytes.bool() ? "-" : "") + digits + (bytes.bool() ? "." + String(digits.reversed()) : "")
            return .decimal(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 0)
        case 10: return .date(Date(timeIntervalSince1970: Double(Int32(truncatingIfNeeded: bytes.word()))))
        case 11: return .url([URL(string: "https://example.com/a b?c=d&e#f"), URL(string: "x:"), URL(fileURLWithPath: "/tmp/ä")][bytes.choice(3)] ?? URL(fileURLWithPath: "/"))
        case 12: return .uuid(UUID(uuid: (bytes.byte(), bytes.byte(), bytes.byte(), bytes.byte(), bytes.byte(), bytes.byte(), bytes.byte(), bytes.byte(),
                                         bytes.byte(), bytes.byte(), bytes.byte(), bytes.byte(), bytes.byte(), bytes.byte(), bytes.byte(), bytes.byte())))
        case 13: return .null
        case 14: return .none
        case 15: return .json(json(from: &bytes, depth: depth))
        case 16, 17: return .array((0..<bytes.choice(5)).map { _ in value(from: &bytes, depth: depth + 1) })
        default: return .object(members(from: &bytes, depth: depth + 1))
        }
    }

    static func json(from bytes: inout FuzzBytes, depth: Int) -> JSONValue {
        switch bytes.choice(depth < 4 ? 6 : 4) {
        case 0: return .null
        case 1: return .bool(bytes.bool())
        case 2: return .number(Double(bitPattern: bytes.word()))
        case 3: return .string(text(from: &bytes))
        case 4: return .array((0..<bytes.choice(4)).map { _ in json(from: &bytes, depth: depth + 1) })
        default: return .object(Dictionary((0..<bytes.choice(4)).map { _ in (text(from: &bytes), json(from: &bytes, depth: depth + 1)) }) { first, _ in first })
        }
    }

    /// What a `params` dictionary holds for this value.
    var sendable: any Sendable {
        switch self {
        case .string(let value): value
        case .character(let value): value
        case .int(let value): value
        case .int8(let value): value
        case .uint64(let value): value
        case .double(let value): value
        case .float(let value): value
        case .bool(let value): value
        case .decimal(let value): value
        case .date(let value): value
        case .url(let value): value
        case .uuid(let value): value
        case .null: NSNull()
        case .none: Int?.none
        case .json(let value): value
        case .array(let elements): elements.map(\.sendable)
        case .object(let members): members.mapValues(\.sendable)
        }
    }

    /// The same value with `JSONValue`s spelled out as the other cases.
    var resolved: ParameterModel {
        guard case .json(let value) = self else { return self }
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let number): return .double(number)
        case .string(let text): return .string(text)
        case .array(let elements): return .array(elements.map { ParameterModel.json($0).resolved })
        case .object(let members): return .object(members.mapValues { ParameterModel.json($0).resolved })
        }
    }

    var description: String {
        switch resolved {
        case .string(let value): value.debugDescription
        case .character(let value): String(value).debugDescription
        case .int(let value): "\(value)"
        case .int8(let value): "\(value) as Int8"
        case .uint64(let value): "\(value) as UInt64"
        case .double(let value): "\(value)"
        case .float(let value): "\(value) as Float"
        case .bool(let value): "\(value)"
        case .decimal(let value): "\(value) as Decimal"
        case .date(let value): "\(value)"
        case .url(let value): "<\(value.absoluteString)>"
        case .uuid(let value): value.uuidString
        case .null: "NSNull"
        case .none: "nil"
        case .json: "json"
        case .array(let elements): "[\(elements.map(\.description).joined(separator: ", "))]"
        case .object(let members): "[\(members.sorted { ParameterValue.keyPrecedes($0.key, $1.key) }.map { "\($0.key.debugDescription): \($0.value)" }.joined(separator: ", "))]"
        }
    }

    // MARK: Expectations

    var holdsNonFiniteNumber: Bool {
        switch resolved {
        case .double(let value): !value.isFinite
        case .float(let value): !value.isFinite
        case .array(let elements): elements.contains { $0.holdsNonFiniteNumber }
        case .object(let members): members.values.contains { $0.holdsNonFiniteNumber }
        default: false
        }
    }

    var holdsDecimal: Bool {
        switch resolved {
        case .decimal: true
        case .array(let elements): elements.contains { $0.holdsDecimal }
        case .object(let members): members.values.contains { $0.holdsDecimal }
        default: false
        }
    }

    /// Whether a string or key holds U+FEFF (which JSONSerialization may drop).
    var holdsBOM: Bool {
        switch resolved {
        case .string(let value): value.unicodeScalars.contains("\u{FEFF}")
        case .character(let value): value.unicodeScalars.contains("\u{FEFF}")
        case .array(let elements): elements.contains { $0.holdsBOM }
        case .object(let members): members.contains { $0.key.unicodeScalars.contains("\u{FEFF}") || $0.value.holdsBOM }
        default: false
        }
    }

    var isNull: Bool {
        switch resolved {
        case .null, .none: true
        default: false
        }
    }

    var isScalar: Bool {
        switch resolved {
        case .array, .object, .null, .none: false
        default: true
        }
    }

    /// One query pair: a scalar, or (comma-separated arrays) the list of an array's items.
    enum QueryValue {
        case scalar(ParameterModel)
        case list([ParameterModel])
    }

    /// The pairs of a top-level object: its members in sorted key order, each under its key.
    func queryPairs(arrays: ArrayEncoding) -> [(name: String, value: QueryValue)] {
        guard case .object(let members) = resolved else { return [] }
        return members.keys.sorted(by: ParameterValue.keyPrecedes).flatMap { members[$0, default: .null].queryPairs(arrays: arrays, name: $0) }
    }

    /// The pairs of a value named `name`: nothing for null, nested objects' members as
    /// `name[key]`, arrays by `arrays`, a scalar as itself.
    private func queryPairs(arrays: ArrayEncoding, name: String) -> [(name: String, value: QueryValue)] {
        switch resolved {
        case .null, .none:
            return []
        case .object(let members):
            return members.keys.sorted(by: ParameterValue.keyPrecedes).flatMap { members[$0, default: .null].queryPairs(arrays: arrays, name: "\(name)[\($0)]") }
        case .array(let elements):
            switch arrays {
            case .repeatedKeys: return elements.flatMap { $0.queryPairs(arrays: arrays, name: name) }
            case .brackets: return elements.flatMap { $0.queryPairs(arrays: arrays, name: name + "[]") }
            case .commaSeparated: return [(name, .list(elements.filter { !$0.isNull }))]
            }
        default:
            return [(name, .scalar(self))]
        }
    }

    /// Whether `text` is how this scalar is written in a query: strings as they are, numbers in a
    /// text that parses back to the same number, dates in ISO 8601, URLs and UUIDs as their text.
    func isWritten(as text: String) -> Bool {
        switch resolved {
        case .string(let value): return text == value
        case .character(let value): return text == String(value)
        case .int(let value): return text == String(value)
        case .int8(let value): return text == String(value)
        case .uint64(let value): return text == String(value)
        case .double(let value): return Double(text) == value && !text.contains("inf") && !text.contains("nan")
        case .float(let value): return Double(text) == Double("\(value)")
        case .bool(let value): return text == (value ? "true" : "false")
        case .decimal(let value): return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) == value
        case .date(let value): return (try? Date(text, strategy: .iso8601)).map { abs($0.timeIntervalSince(value)) < 1 } == true
        case .url(let value): return text == value.absoluteString
        case .uuid(let value): return text == value.uuidString
        default: return false
        }
    }

    /// Whether `object`, as `JSONSerialization` read the body, is this value.
    func isRead(as object: Any) -> Bool {
        switch resolved {
        case .null, .none:
            return object is NSNull
        case .array(let elements):
            guard let array = object as? [Any], array.count == elements.count else { return false }
            return zip(elements, array).allSatisfy { $0.isRead(as: $1) }
        case .object(let members):
            guard let dictionary = object as? [String: Any], dictionary.count == members.count else { return false }
            return members.allSatisfy { key, value in dictionary[key].map { value.isRead(as: $0) } == true }
        case .bool(let value):
            return (object as? NSNumber)?.boolValue == value
        case .string, .character, .date, .url, .uuid:
            return (object as? String).map { isWritten(as: $0) } == true
        case .int, .int8, .uint64, .double, .float, .decimal:
            return (object as? NSNumber).map(isNumber) == true
        case .json:
            return false
        }
    }

    /// Whether `value`, as a decoder read the body into a `JSONValue`, is this value (numbers as
    /// `Double`s, so integers are compared as the `Double` nearest to them).
    func isDecoded(as value: JSONValue) -> Bool {
        switch (resolved, value) {
        case (.null, .null), (.none, .null): return true
        case (.array(let elements), .array(let values)):
            return elements.count == values.count && zip(elements, values).allSatisfy { $0.isDecoded(as: $1) }
        case (.object(let members), .object(let values)):
            return members.count == values.count && members.allSatisfy { key, member in values[key].map(member.isDecoded) == true }
        case (.bool(let flag), .bool(let decoded)): return flag == decoded
        case (.string, .string(let text)), (.character, .string(let text)), (.date, .string(let text)),
             (.url, .string(let text)), (.uuid, .string(let text)):
            return isWritten(as: text)
        case (.int(let number), .number(let decoded)): return Double(number) == decoded
        case (.int8(let number), .number(let decoded)): return Double(number) == decoded
        case (.uint64(let number), .number(let decoded)): return Double(number) == decoded
        case (.double(let number), .number(let decoded)): return number == decoded
        case (.float(let number), .number(let decoded)): return Double("\(number)") == decoded
        case (.decimal(let number), .number(let decoded)): return Double(number.description) == decoded
        default: return false
        }
    }

    /// Whether `number` is this number (integers exactly, in their decimal digits).
    private func isNumber(_ number: NSNumber) -> Bool {
        switch resolved {
        case .int(let value): number.stringValue == String(value)
        case .int8(let value): number.stringValue == String(value)
        case .uint64(let value): number.stringValue == String(value)
        // JSONSerialization reads a long number as a decimal (whose doubleValue may be an ulp
        // off), a short one as a Double: its text is the exact value either way.
        case .double(let value): number.doubleValue == value || Double(number.stringValue) == value
        case .float(let value): number.doubleValue == Double("\(value)") || Double(number.stringValue) == Double("\(value)")
        case .decimal(let value): number.decimalValue == value || number.doubleValue == Double(value.description)
        default: false
        }
    }
}
