import Foundation
import Testing
import TestScheduling
@testable import FastJSON

// The top level of a document that is an object or an array: FastJSON builds its tape only when
// the type asks for what the document holds (JSONTopLevelDecoder). Whatever a type asks first,
// whatever it does with the errors it gets, the outcome is Foundation's: the same value, or the
// same error, and `dataCorrupted` for every invalid document.

private typealias Diff = JSONDifferential

/// Asks for a keyed container, and on any error for an unkeyed one.
private struct KeyedThenUnkeyed: Decodable, Equatable {
    let values: [Int]

    private enum Keys: String, CodingKey { case values }

    init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Keys.self) {
            values = try keyed.decode([Int].self, forKey: .values)
            return
        }
        var unkeyed = try decoder.unkeyedContainer()
        var values: [Int] = []
        while !unkeyed.isAtEnd { values.append(try unkeyed.decode(Int.self)) }
        self.values = values
    }
}

/// Falls back to unkeyed only after a `typeMismatch`; any other error passes through.
private struct FallsBackOnMismatch: Decodable, Equatable {
    let count: Int

    private enum Keys: String, CodingKey { case count }

    init(from decoder: any Decoder) throws {
        do {
            count = try decoder.container(keyedBy: Keys.self).decode(Int.self, forKey: .count)
        } catch DecodingError.typeMismatch {
            count = try decoder.unkeyedContainer().count ?? -1
        }
    }
}

/// Swallows every error and decodes as a default.
private struct Forgiving: Decodable, Equatable {
    let name: String

    private enum Keys: String, CodingKey { case name }

    init(from decoder: any Decoder) {
        name = (try? decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .name)) ?? "default"
    }
}

/// Asks nothing of the decoder.
private struct AsksNothing: Decodable, Equatable {
    init(from decoder: any Decoder) {}
}

/// Throws an error of its own before asking anything.
private struct ThrowsFirst: Decodable, Equatable {
    struct Refused: Error {}

    init(from decoder: any Decoder) throws { throw Refused() }
}

/// Only asks whether the value is null.
private struct NullCheck: Decodable, Equatable {
    let isNull: Bool

    init(from decoder: any Decoder) throws {
        isNull = try decoder.singleValueContainer().decodeNil()
    }
}

/// A single value wrapping another type.
private struct Wrapper<Inner: Decodable & Equatable>: Decodable, Equatable {
    let inner: Inner

    init(from decoder: any Decoder) throws {
        inner = try decoder.singleValueContainer().decode(Inner.self)
    }
}

private struct Pair: Decodable, Equatable {
    let a: Int
    let b: String
}

@Suite("FastJSONDecoder at the top level of a container matches JSONDecoder", .sharing)
struct FastJSONTopLevelTests {
    static let documents = [
        #"{"values": [1, 2], "count": 3, "name": "n", "a": 1, "b": "x"}"#, #"[1, 2, 3]"#, #"[]"#, #"{}"#,
        #"[1, 2, x]"#, #"{"a": 1,"#, #"[1, 2] garbage"#, #"{"a": 1} }"#, #"[{"a": 1, "b": "x"}]"#,
        #"  [1,2,]  "#, #"[1e400, "\u00e9"]"#, #"{"values": [1, "x"]}"#, "[" + String(repeating: "[", count: 600),
    ]

    @Test("A type that tries a keyed container, then an unkeyed one", arguments: documents)
    func keyedThenUnkeyed(json: String) {
        Diff.expectSame(KeyedThenUnkeyed.self, json)
        Diff.expectSame(FallsBackOnMismatch.self, json)
    }

    @Test("A type that swallows every error still fails on an invalid document", arguments: documents)
    func forgiving(json: String) {
        Diff.expectSame(Forgiving.self, json)
        Diff.expectSame(AsksNothing.self, json)
        Diff.expectSame(NullCheck.self, json)
        Diff.expectSame(ThrowsFirst.self, json)
    }

    @Test("Single values, arrays of primitives and special types asked of a container", arguments: documents)
    func primitives(json: String) {
        Diff.expectSame(String.self, json)
        Diff.expectSame(Int.self, json)
        Diff.expectSame(Int8.self, json)
        Diff.expectSame(UInt64.self, json)
        Diff.expectSame(Double.self, json)
        Diff.expectSame(Float.self, json)
        Diff.expectSame(Bool.self, json)
        Diff.expectSame([Int].self, json)
        Diff.expectSame([String].self, json)
        Diff.expectSame([Double].self, json)
        Diff.expectSame([Bool].self, json)
        Diff.expectSame([Int8].self, json)
        Diff.expectSame(Date.self, json)
        Diff.expectSame(Data.self, json)
        Diff.expectSame(URL.self, json)
        Diff.expectSame(Decimal.self, json)
        // A dictionary reports the first value that fails in its keys' hash order, which differs
        // from process to process (in Foundation too): only where at most one value can fail.
        if json.filter({ $0 == ":" }).count <= 1 { Diff.expectSame([String: Int].self, json) }
        Diff.expectSame(Pair.self, json)
        Diff.expectSame([Pair].self, json)
    }

    @Test("A single-value wrapper hands the container on", arguments: documents)
    func wrappers(json: String) {
        Diff.expectSame(Wrapper<[Int]>.self, json)
        Diff.expectSame(Wrapper<Pair>.self, json)
        Diff.expectSame(Wrapper<Wrapper<[Pair]>>.self, json)
        Diff.expectSame(Wrapper<Int>.self, json)
        Diff.expectSame(Wrapper<String?>.self, json)
        Diff.expectSame(Wrapper<KeyedThenUnkeyed>.self, json)
        Diff.expectSame(Int?.self, json)
        Diff.expectSame(Pair?.self, json)
    }
}
