import Foundation

/// A request parameter: a closed set of values, converted once, that encode as a query or JSON.
enum ParameterValue: Sendable {
    case string(String)
    case bool(Bool)
    case integer(Int64)
    case unsignedInteger(UInt64)
    case double(Double)
    case decimal(Decimal)
    case null
    case array([ParameterValue])
    /// Keys sorted by their UTF-8 bytes (``keyPrecedes(_:_:)``), so the same parameters always encode to the same bytes.
    case object([(key: String, value: ParameterValue)])

    var isEmptyObject: Bool {
        if case .object(let members) = self { return members.isEmpty }
        return false
    }

    /// Converts a parameter dictionary, or explains which value cannot be sent.
    static func object(from dictionary: [String: any Sendable]) throws(NetworkError) -> ParameterValue {
        try convert(dictionary, path: "params")
    }

    static func array(from array: [any Sendable]) throws(NetworkError) -> ParameterValue {
        try convert(array, path: "body")
    }

    private static func convert(_ value: Any, path: String) throws(NetworkError) -> ParameterValue {
        // An NSNumber would also cast to Bool and Int; its type code says which it is.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            switch String(cString: number.objCType) {
            case "c", "B": return .bool(number.boolValue)
            case "d", "f": return try finite(number.doubleValue, path: path)
            case "Q", "L", "I", "S", "C": return .unsignedInteger(number.uint64Value)
            default: return .integer(number.int64Value)
            }
        }
        switch value {
        case let v as String: return .string(v)
        case let v as Substring: return .string(String(v))
        case let v as Character: return .string(String(v))
        case let v as Bool: return .bool(v)
        case let v as Int: return .integer(Int64(v))
        case let v as Int8: return .integer(Int64(v))
        case let v as Int16: return .integer(Int64(v))
        case let v as Int32: return .integer(Int64(v))
        case let v as Int64: return .integer(v)
        case let v as UInt: return .unsignedInteger(UInt64(v))
        case let v as UInt8: return .unsignedInteger(UInt64(v))
        case let v as UInt16: return .unsignedInteger(UInt64(v))
        case let v as UInt32: return .unsignedInteger(UInt64(v))
        case let v as UInt64: return .unsignedInteger(v)
        case let v as Double: return try finite(v, path: path)
        // Through its shortest decimal text, so 0.1 as Float is 0.1 and not 0.10000000149011612.
        case let v as Float: return try finite(Double("\(v)") ?? Double(v), path: path)
        case let v as Decimal: return .decimal(v)
        case let v as Date: return .string(v.formatted(.iso8601))
        case let v as URL: return .string(v.absoluteString)
        case let v as UUID: return .string(v.uuidString)
        case is NSNull: return .null
        case let v as JSONValue: return try convert(json: v, path: path)

        case let v as [Any]:
            var items: [ParameterValue] = []
            items.reserveCapacity(v.count)
            for (index, item) in v.enumerated() { items.append(try convert(item, path: "\(path)[\(index)]")) }
            return .array(items)
        case let v as [String: Any]:
            var members: [(key: String, value: ParameterValue)] = []
            members.reserveCapacity(v.count)
            for (key, member) in v.sorted(by: { Self.keyPrecedes($0.key, $1.key) }) { members.append((key, try convert(member, path: "\(path).\(key)"))) }
            return .object(members)
        default:
            // `nil` arrives as an Optional wrapped in the existential.
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else { return .null }
                return try convert(wrapped, path: path)
            }
            throw .invalidRequest(.init(reason: "\(path) holds a \(type(of: value)), which cannot be sent as a parameter "
                                        + "(use strings, numbers, booleans, dates, arrays or dictionaries)"))
        }
    }

    private static func convert(json: JSONValue, path: String) throws(NetworkError) -> ParameterValue {
        switch json {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .number(let number): return try finite(number, path: path)
        case .string(let text): return .string(text)
        case .array(let elements):
            var items: [ParameterValue] = []
            items.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() { items.append(try convert(json: element, path: "\(path)[\(index)]")) }
            return .array(items)
        case .object(let members):
            var converted: [(key: String, value: ParameterValue)] = []
            converted.reserveCapacity(members.count)
            for key in members.keys.sorted(by: Self.keyPrecedes) {
                // The key comes from `members`, so the lookup cannot miss.
                converted.append((key, try convert(json: members[key] ?? .null, path: "\(path).\(key)")))
            }
            return .object(converted)
        }
    }

    private static func finite(_ value: Double, path: String) throws(NetworkError) -> ParameterValue {
        guard value.isFinite else {
            throw .invalidRequest(.init(reason: "\(path) is \(value), which has no JSON or query form"))
        }
        return .double(value)
    }
}

// MARK: - Query encoding

extension ParameterValue {
    /// `application/x-www-form-urlencoded`-style query text for an object, percent-encoded per
    /// RFC 3986 (every byte outside `A-Z a-z 0-9 - . _ ~`), so any text round-trips exactly.
    func queryString(arrays: ArrayEncoding = .repeatedKeys) -> String {
        guard case .object(let members) = self else { return "" }
        var pairs: [String] = []
        for member in members { Self.appendQueryPairs(name: member.key, value: member.value, arrays: arrays, into: &pairs) }
        return pairs.joined(separator: "&")
    }

    private static func appendQueryPairs(name: String, value: ParameterValue, arrays: ArrayEncoding,
                                         into pairs: inout [String]) {
        switch value {
        case .null:
            return
        case .array(let items):
            switch arrays {
            case .repeatedKeys:
                for item in items { appendQueryPairs(name: name, value: item, arrays: arrays, into: &pairs) }
            case .brackets:
                for item in items { appendQueryPairs(name: name + "[]", value: item, arrays: arrays, into: &pairs) }
            case .commaSeparated:
                let scalars = items.filter { if case .null = $0 { false } else { true } }
                pairs.append(percentEncode(name) + "=" + scalars.map { percentEncode($0.scalarText) }.joined(separator: ","))
            }
        case .object(let members):
            for member in members {
                appendQueryPairs(name: "\(name)[\(member.key)]", value: member.value, arrays: arrays, into: &pairs)
            }
        default:
            pairs.append(percentEncode(name) + "=" + percentEncode(value.scalarText))
        }
    }

    /// The text of a scalar in a query: `true`/`false`, numbers in their shortest exact form.
    var scalarText: String {
        switch self {
        case .string(let s): s
        case .bool(let b): b ? "true" : "false"
        case .integer(let i): String(i)
        case .unsignedInteger(let u): String(u)
        case .double(let d): d.compactText
        case .decimal(let d): d.description
        case .null, .array, .object: ""
        }
    }

    static func percentEncode(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

// MARK: - JSON encoding

extension ParameterValue {
    /// Compact JSON with sorted keys and `/` unescaped.
    func jsonData() -> Data {
        var out: [UInt8] = []
        appendJSON(to: &out)
        return Data(out)
    }

    private func appendJSON(to out: inout [UInt8]) {
        switch self {
        case .string(let s): Self.appendJSONString(s, to: &out)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .unsignedInteger(let u): out.append(contentsOf: String(u).utf8)
        case .double(let d): out.append(contentsOf: d.compactText.utf8)
        case .decimal(let d): out.append(contentsOf: d.description.utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.appendJSON(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.appendJSONString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.appendJSON(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func appendJSONString(_ s: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
