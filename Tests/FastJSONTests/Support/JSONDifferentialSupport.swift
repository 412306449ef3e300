import Foundation
import Testing
@testable import FastJSON

/// Differential testing of `FastJSONDecoder` against Foundation's `JSONDecoder()`: both decode the
/// same bytes; the outcomes must be the same value, or the same error.
enum JSONDifferential {
    /// What a decode produced: a value, or the error in canonical form (``JSONOutcome``, the fuzz
    /// target's own, compiled here through the link Support/JSONOutcome.swift: one definition of
    /// "the same outcome" for the tests and the fuzzer).
    typealias Outcome<Value: Equatable> = JSONOutcome<Value>

    static func foundation<T: Decodable & Equatable>(_ type: T.Type, _ data: Data) -> Outcome<T> {
        Outcome { try JSONDecoder().decode(T.self, from: data) }
    }

    static func fast<T: Decodable & Equatable>(_ type: T.Type, _ data: Data) -> Outcome<T> {
        Outcome { try FastJSONDecoder.decode(T.self, from: data) }
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

    /// An error as everything a caller can observe of it (see ``JSONOutcome``).
    static func describe(_ error: any Error) -> String {
        Outcome<Bool>.describe(error)
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
