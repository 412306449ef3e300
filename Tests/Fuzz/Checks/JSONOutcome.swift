import Foundation

/// What a decode produced, comparable across decoders: the value, or the error as everything a
/// caller can observe of it (the `DecodingError` case, its type, each coding key's string value,
/// int value and type, the description and the underlying error's type). Foundation's private key
/// type and FastJSON's (`JSONIndexKey`, `JSONSuperKey`) count as the same.
///
/// The one definition of "the same outcome": the fuzz target, FuzzRegressionTests and FastJSONTests
/// (through the link Tests/FastJSONTests/Support/JSONOutcome.swift) all compile this file.
enum JSONOutcome<Value: Equatable>: Equatable, CustomStringConvertible {
    case value(Value)
    case error(String)

    init(_ decode: () throws -> Value) {
        do { self = .value(try decode()) } catch { self = .error(Self.describe(error)) }
    }

    var description: String {
        switch self {
        case .value(let value): "the value \(String(reflecting: value))"
        case .error(let error): "the error \(error)"
        }
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else {
            // Foundation's internal parser error, which code inside `init(from:)` can catch before it
            // becomes `dataCorrupted`: its type and case, the same in both decoders. Not the source
            // location it carries: that is the value's position in the bytes Foundation was given
            // (the whole document, or the value alone for FastJSON).
            return "\(String(reflecting: type(of: error))).\(String(describing: error).prefix { $0 != "(" })"
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
