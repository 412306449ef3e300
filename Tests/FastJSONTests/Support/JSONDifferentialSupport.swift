import Foundation
import Testing
@testable import FastJSON

/// Differential testing of `FastJSONDecoder` against Foundation's `JSONDecoder()`: both decode the
/// same bytes; the outcomes must be the same value, or the same error.
enum JSONDifferential {
    /// What a decode produced: a value, or an error in canonical form.
    enum Outcome<Value: Equatable>: Equatable, CustomStringConvertible {
        case value(Value)
        case error(String)

        var description: String {
            switch self {
            case .value(let value): "value \(String(reflecting: value))"
            case .error(let error): "error \(error)"
            }
        }
    }

    static func foundation<T: Decodable & Equatable>(_ type: T.Type, _ data: Data) -> Outcome<T> {
        do { return .value(try JSONDecoder().decode(T.self, from: data)) } catch { return .error(describe(error)) }
    }

    static func fast<T: Decodable & Equatable>(_ type: T.Type, _ data: Data) -> Outcome<T> {
        do { return .value(try FastJSONDecoder.decode(T.self, from: data)) } catch { return .error(describe(error)) }
    }

    /// Checks that both decoders give the same outcome; returns Foundation's.
    @discardableResult
    static func expectSame<T: Decodable & Equatable>(_ type: T.Type, _ data: Data,
                                                     sourceLocation: SourceLocation = #_sourceLocation) -> Outcome<T> {
        let reference = foundation(T.self, data)
        let candidate = fast(T.self, data)
        #expect(candidate == reference, "\(T.self) from \(preview(data))", sourceLocation: sourceLocation)
        return reference
    }

    @discardableResult
    static func expectSame<T: Decodable & Equatable>(_ type: T.Type, _ json: String,
                                                     sourceLocation: SourceLocation = #_sourceLocation) -> Outcome<T> {
        expectSame(T.self, Data(json.utf8), sourceLocation: sourceLocation)
    }

    static func preview(_ data: Data) -> String {
        let text = String(decoding: data.prefix(300), as: UTF8.self).debugDescription
        return data.count > 300 ? text + "… (\(data.count) bytes)" : text
    }

    /// An error as everything a caller can observe of it: the `DecodingError` case, its type, the
    /// coding path (each key's string value, int value and type), the description, and the
    /// underlying error's type. Foundation's private key type (`_CodingKey`, for array indexes
    /// and `super`) and this decoder's (`JSONIndexKey`, `JSONSuperKey`) count as the same.
    ///
    /// Any other error is its type and, for an enum, its case: Foundation's internal parser error,
    /// which code inside `init(from:)` can catch before it becomes `dataCorrupted`, is the same
    /// type and case in both, but the source location it carries is the value's position in the
    /// bytes Foundation was given (the whole document, or the value alone for this decoder).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else {
            let text = String(describing: error)
            return "\(String(reflecting: type(of: error))).\(text.prefix { $0 != "(" })"
        }
        func key(_ key: any CodingKey) -> String {
            var typeName = String(reflecting: type(of: key))
            if ["FoundationEssentials._CodingKey", "FastJSON.JSONIndexKey", "FastJSON.JSONSuperKey"].contains(typeName) {
                typeName = "internal"
            }
            return "\(key.stringValue)|\(key.intValue.map(String.init) ?? "nil")|\(typeName)"
        }
        func context(_ context: DecodingError.Context) -> String {
            let underlying = context.underlyingError.map { String(reflecting: type(of: $0)) } ?? "nil"
            return "path \(context.codingPath.map(key)) — \(context.debugDescription) — underlying \(underlying)"
        }
        switch error {
        case .typeMismatch(let type, let c): return "typeMismatch(\(type)) \(context(c))"
        case .valueNotFound(let type, let c): return "valueNotFound(\(type)) \(context(c))"
        case .keyNotFound(let k, let c): return "keyNotFound(\(key(k))) \(context(c))"
        case .dataCorrupted(let c): return "dataCorrupted \(context(c))"
        @unknown default: return "unknown \(error)"
        }
    }
}

// MARK: - A deterministic random source

/// SplitMix64: the same sequence on every run, so a failure is reproducible from its seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - Any JSON, decoded the way generic code inspects it

/// Decodes any JSON by probing containers and types in turn, the way generic code does (`try?`
/// included), so random documents exercise every container and every error path.
indirect enum AnyJSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([AnyJSONValue])
    case object([String: AnyJSONValue])

    struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            var result: [String: AnyJSONValue] = [:]
            for key in object.allKeys {
                result[key.stringValue] = try object.decode(AnyJSONValue.self, forKey: key)
            }
            self = .object(result)
        } else if var array = try? decoder.unkeyedContainer() {
            var result: [AnyJSONValue] = []
            while !array.isAtEnd {
                result.append(try array.decode(AnyJSONValue.self))
            }
            self = .array(result)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let value = try? single.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? single.decode(Int.self) {
                self = .int(value)
            } else if let value = try? single.decode(Double.self) {
                self = .double(value)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }
}
