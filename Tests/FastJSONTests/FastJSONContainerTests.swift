import Foundation
import Testing
import TestScheduling
@testable import FastJSON

// The container APIs called directly, as hand-written `init(from:)` code calls them: a probe type
// runs a script against the decoder and records everything it observes (values, counts, indexes,
// coding paths, caught errors). Both decoders must record the same.

private typealias Diff = JSONDifferential

/// What a script records; `Equatable` so the two decoders' records can be compared.
private struct Recording: Decodable, Equatable {
    var lines: [String] = []

    typealias Script = @Sendable (any Decoder, inout Recording) throws -> Void

    @TaskLocal static var script: Script = { _, _ in }

    init() {}

    init(from decoder: any Decoder) throws {
        try Self.script(decoder, &self)
    }

    /// Records a value or the error it threw.
    mutating func note(_ label: String, _ body: () throws -> Any) {
        do {
            let value = try body()
            lines.append("\(label) = \(String(describing: value))")
        } catch {
            lines.append("\(label) threw \(Diff.describe(error))")
        }
    }

    mutating func path(_ label: String, _ codingPath: [any CodingKey]) {
        lines.append("\(label) path \(codingPath.map { "\($0.stringValue)|\($0.intValue.map(String.init) ?? "nil")" })")
    }
}

private struct Key: CodingKey, Hashable {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    init?(intValue: Int) { stringValue = "\(intValue)"; self.intValue = intValue }
    init(_ name: String) { self.init(stringValue: name) }
}

private func expectSameRecording(_ json: String, sourceLocation: SourceLocation = #_sourceLocation,
                                 _ script: @escaping Recording.Script) {
    Recording.$script.withValue(script) {
        Diff.expectSame(Recording.self, json, sourceLocation: sourceLocation)
        Diff.expectSame([Recording].self, "[\(json)]", sourceLocation: sourceLocation)
        Diff.expectSame([String: Recording].self, #"{"nested":\#(json)}"#, sourceLocation: sourceLocation)
    }
}

@Suite("FastJSONDecoder containers match JSONDecoder's", .sharing)
struct FastJSONContainerTests {
    static let object = #"{"int":1,"neg":-7,"big":18446744073709551615,"double":2.5,"string":"s","bool":true,"null":null,"# +
        #""array":[1,"two",null,{"x":1},[3]],"object":{"a":1,"b":{"c":[true]}},"super":{"int":42},"dup":1,"dup":2}"#

    @Test("Keyed container: lookups, primitives, decodeIfPresent, decodeNil, contains, allKeys")
    func keyed() {
        expectSameRecording(Self.object) { decoder, r in
            let c = try decoder.container(keyedBy: Key.self)
            r.path("container", c.codingPath)
            r.note("allKeys") { c.allKeys.map(\.stringValue).sorted() }
            for name in ["int", "neg", "big", "double", "string", "bool", "null", "array", "object", "missing", "dup"] {
                let key = Key(name)
                r.note("contains \(name)") { c.contains(key) }
                r.note("decodeNil \(name)") { try c.decodeNil(forKey: key) }
                r.note("Bool \(name)") { try c.decode(Bool.self, forKey: key) }
                r.note("String \(name)") { try c.decode(String.self, forKey: key) }
                r.note("Double \(name)") { try c.decode(Double.self, forKey: key) }
                r.note("Float \(name)") { try c.decode(Float.self, forKey: key) }
                r.note("Int \(name)") { try c.decode(Int.self, forKey: key) }
                r.note("Int8 \(name)") { try c.decode(Int8.self, forKey: key) }
                r.note("Int16 \(name)") { try c.decode(Int16.self, forKey: key) }
                r.note("Int32 \(name)") { try c.decode(Int32.self, forKey: key) }
                r.note("Int64 \(name)") { try c.decode(Int64.self, forKey: key) }
                r.note("Int128 \(name)") { try c.decode(Int128.self, forKey: key) }
                r.note("UInt \(name)") { try c.decode(UInt.self, forKey: key) }
                r.note("UInt8 \(name)") { try c.decode(UInt8.self, forKey: key) }
                r.note("UInt16 \(name)") { try c.decode(UInt16.self, forKey: key) }
                r.note("UInt32 \(name)") { try c.decode(UInt32.self, forKey: key) }
                r.note("UInt64 \(name)") { try c.decode(UInt64.self, forKey: key) }
                r.note("UInt128 \(name)") { try c.decode(UInt128.self, forKey: key) }
                r.note("[Int] \(name)") { try c.decode([Int].self, forKey: key) }
                r.note("[String: Int] \(name)") { try c.decode([String: Int].self, forKey: key) }
                r.note("Date \(name)") { try c.decode(Date.self, forKey: key) }
                r.note("Bool? \(name)") { try c.decodeIfPresent(Bool.self, forKey: key) as Any }
                r.note("String? \(name)") { try c.decodeIfPresent(String.self, forKey: key) as Any }
                r.note("Double? \(name)") { try c.decodeIfPresent(Double.self, forKey: key) as Any }
                r.note("Float? \(name)") { try c.decodeIfPresent(Float.self, forKey: key) as Any }
                r.note("Int? \(name)") { try c.decodeIfPresent(Int.self, forKey: key) as Any }
                r.note("Int8? \(name)") { try c.decodeIfPresent(Int8.self, forKey: key) as Any }
                r.note("Int16? \(name)") { try c.decodeIfPresent(Int16.self, forKey: key) as Any }
                r.note("Int32? \(name)") { try c.decodeIfPresent(Int32.self, forKey: key) as Any }
                r.note("Int64? \(name)") { try c.decodeIfPresent(Int64.self, forKey: key) as Any }
                r.note("Int128? \(name)") { try c.decodeIfPresent(Int128.self, forKey: key) as Any }
                r.note("UInt? \(name)") { try c.decodeIfPresent(UInt.self, forKey: key) as Any }
                r.note("UInt8? \(name)") { try c.decodeIfPresent(UInt8.self, forKey: key) as Any }
                r.note("UInt16? \(name)") { try c.decodeIfPresent(UInt16.self, forKey: key) as Any }
                r.note("UInt32? \(name)") { try c.decodeIfPresent(UInt32.self, forKey: key) as Any }
                r.note("UInt64? \(name)") { try c.decodeIfPresent(UInt64.self, forKey: key) as Any }
                r.note("UInt128? \(name)") { try c.decodeIfPresent(UInt128.self, forKey: key) as Any }
                r.note("[Int]? \(name)") { try c.decodeIfPresent([Int].self, forKey: key) as Any }
                r.note("URL? \(name)") { try c.decodeIfPresent(URL.self, forKey: key) as Any }
                r.note("Decimal? \(name)") { try c.decodeIfPresent(Decimal.self, forKey: key) as Any }
                r.note("Data? \(name)") { try c.decodeIfPresent(Data.self, forKey: key) as Any }
            }
        }
    }

    @Test("Keyed container: nested containers, superDecoder, coding paths")
    func keyedNesting() {
        expectSameRecording(Self.object) { decoder, r in
            let c = try decoder.container(keyedBy: Key.self)
            for name in ["object", "array", "null", "int", "missing", "super"] {
                let key = Key(name)
                r.note("nested keyed \(name)") {
                    let nested = try c.nestedContainer(keyedBy: Key.self, forKey: key)
                    return "\(nested.codingPath.map(\.stringValue)) \(nested.allKeys.map(\.stringValue).sorted())"
                }
                r.note("nested unkeyed \(name)") {
                    let nested = try c.nestedUnkeyedContainer(forKey: key)
                    return "\(nested.codingPath.map(\.stringValue)) \(nested.count as Any) \(nested.currentIndex)"
                }
                r.note("superDecoder(forKey:) \(name)") {
                    let sub = try c.superDecoder(forKey: key)
                    let single = try sub.singleValueContainer()
                    return "\(sub.codingPath.map(\.stringValue)) nil=\(single.decodeNil())"
                }
            }
            r.note("superDecoder") {
                let sub = try c.superDecoder()
                let nested = try sub.container(keyedBy: Key.self)
                return "\(sub.codingPath.map(\.stringValue)) \(try nested.decode(Int.self, forKey: Key("int")))"
            }
            // Deeper: object.b.c[0], with errors at each level.
            var inner = Recording()
            r.note("deep") {
                let b = try c.nestedContainer(keyedBy: Key.self, forKey: Key("object")).nestedContainer(keyedBy: Key.self, forKey: Key("b"))
                var list = try b.nestedUnkeyedContainer(forKey: Key("c"))
                inner.path("list", list.codingPath)
                let first = try list.decode(Bool.self)
                inner.note("past the end") { try list.decode(Bool.self) }
                inner.note("missing deep") { try b.decode(Int.self, forKey: Key("zz")) }
                inner.note("wrong deep") { try b.decode(Int.self, forKey: Key("c")) }
                return first
            }
            r.lines += inner.lines
            // One failing entry: with several, Foundation reports whichever its dictionary order reaches
            // first, which varies from run to run (this decoder: the first in document order).
            r.note("typeMismatch in a nested dictionary") { try c.decode([String: Int].self, forKey: Key("object")) }
        }
        // A superDecoder over a missing "super" key decodes null.
        expectSameRecording(#"{"a":1}"#) { decoder, r in
            let c = try decoder.container(keyedBy: Key.self)
            var inner = Recording()
            r.note("super") {
                let sub = try c.superDecoder()
                inner.path("super", sub.codingPath)
                inner.note("keyed") { try sub.container(keyedBy: Key.self).allKeys.count }
                inner.note("unkeyed") { try sub.unkeyedContainer().count as Any }
                inner.note("Int?") { try sub.singleValueContainer().decode(Int?.self) as Any }
                return try sub.singleValueContainer().decodeNil()
            }
            r.lines += inner.lines
        }
    }

    @Test("Unkeyed container: count, isAtEnd, currentIndex, decodeNil, decoding past the end")
    func unkeyed() {
        let array = #"[1, null, "s", 2.5, true, {"k": 1}, [1, 2], -3, 300, null]"#
        expectSameRecording(array) { decoder, r in
            var u = try decoder.unkeyedContainer()
            r.note("count") { u.count as Any }
            r.path("unkeyed", u.codingPath)
            while !u.isAtEnd {
                let index = u.currentIndex
                // Wrong types first: they must not advance.
                r.note("\(index) Bool") { try u.decode(Bool.self) }
                r.note("\(index) String") { try u.decode(String.self) }
                r.note("\(index) Int8") { try u.decode(Int8.self) }
                r.note("\(index) UInt") { try u.decode(UInt.self) }
                r.note("\(index) Float") { try u.decode(Float.self) }
                r.note("\(index) Decimal") { try u.decode(Decimal.self) }
                r.note("\(index) index") { u.currentIndex }
                r.note("\(index) decodeNil") { try u.decodeNil() }
                if u.currentIndex == index {
                    r.note("\(index) any") { try u.decode(AnyJSONValue.self) }
                }
                r.note("\(index) index after") { u.currentIndex }
            }
            r.note("isAtEnd") { u.isAtEnd }
            r.note("Bool at end") { try u.decode(Bool.self) }
            r.note("String at end") { try u.decode(String.self) }
            r.note("Double at end") { try u.decode(Double.self) }
            r.note("Int at end") { try u.decode(Int.self) }
            r.note("UInt64 at end") { try u.decode(UInt64.self) }
            r.note("Int128 at end") { try u.decode(Int128.self) }
            r.note("[Int] at end") { try u.decode([Int].self) }
            r.note("decodeNil at end") { try u.decodeNil() }
            r.note("nested keyed at end") { try u.nestedContainer(keyedBy: Key.self).codingPath.count }
            r.note("nested unkeyed at end") { try u.nestedUnkeyedContainer().codingPath.count }
            r.note("superDecoder at end") { try u.superDecoder().codingPath.count }
            r.note("index") { u.currentIndex }
            r.note("Int? at end") { try u.decodeIfPresent(Int.self) as Any }
            r.note("index after Int?") { u.currentIndex }
            r.note("String? at end") { try u.decodeIfPresent(String.self) as Any }
            r.note("[Int]? at end") { try u.decodeIfPresent([Int].self) as Any }
            r.note("Bool? at end") { try u.decodeIfPresent(Bool.self) as Any }
            r.note("Double? at end") { try u.decodeIfPresent(Double.self) as Any }
            r.note("Float? at end") { try u.decodeIfPresent(Float.self) as Any }
            r.note("UInt8? at end") { try u.decodeIfPresent(UInt8.self) as Any }
            r.note("Int128? at end") { try u.decodeIfPresent(Int128.self) as Any }
            r.note("index after all") { u.currentIndex }
            r.note("isAtEnd after all") { u.isAtEnd }
        }
        expectSameRecording(array) { decoder, r in
            var u = try decoder.unkeyedContainer()
            r.note("Int?") { try u.decodeIfPresent(Int.self) as Any }
            r.note("Int? null") { try u.decodeIfPresent(Int.self) as Any }
            r.note("Int? string") { try u.decodeIfPresent(Int.self) as Any }
            r.note("index") { u.currentIndex }
            r.note("String?") { try u.decodeIfPresent(String.self) as Any }
            r.note("Double?") { try u.decodeIfPresent(Double.self) as Any }
            r.note("Bool?") { try u.decodeIfPresent(Bool.self) as Any }
            r.note("nested keyed") {
                let nested = try u.nestedContainer(keyedBy: Key.self)
                return "\(nested.codingPath.map(\.stringValue)) \(try nested.decode(Int.self, forKey: Key("k")))"
            }
            r.note("nested unkeyed") {
                var nested = try u.nestedUnkeyedContainer()
                return "\(nested.codingPath.map(\.stringValue)) \(try nested.decode(Int.self)) \(try nested.decode(Int.self)) \(nested.isAtEnd)"
            }
            r.note("superDecoder") {
                let sub = try u.superDecoder()
                return "\(sub.codingPath.map(\.stringValue)) \(try sub.singleValueContainer().decode(Int.self))"
            }
            r.note("Int8? 300") { try u.decodeIfPresent(Int8.self) as Any }
            r.note("UInt16? 300") { try u.decodeIfPresent(UInt16.self) as Any }
            r.note("nested keyed on null") { try u.nestedContainer(keyedBy: Key.self).allKeys.count }
            r.note("nested unkeyed on null") { try u.nestedUnkeyedContainer().count as Any }
            r.note("[Int]? null") { try u.decodeIfPresent([Int].self) as Any }
            r.note("index") { u.currentIndex }
        }
        // Arrays inside arrays: paths through several indexes.
        expectSameRecording("[[[1, 2], [3, \"x\"]], [[]]]") { decoder, r in
            var outer = try decoder.unkeyedContainer()
            while !outer.isAtEnd {
                var middle = try outer.nestedUnkeyedContainer()
                while !middle.isAtEnd {
                    var inner = try middle.nestedUnkeyedContainer()
                    r.path("inner", inner.codingPath)
                    while !inner.isAtEnd {
                        r.note("element") { try inner.decode(Int.self) }
                        if !inner.isAtEnd, (try? inner.decode(Int.self)) == nil { _ = try? inner.decode(String.self) }
                    }
                }
            }
        }
    }

    @Test("Single-value container and the decoder's own container requests")
    func singleValue() {
        for json in ["1", "-1", "2.5", "1e3", #""s""#, "true", "null", "[]", "{}", "300", "18446744073709551616"] {
            expectSameRecording(json) { decoder, r in
                r.path("decoder", decoder.codingPath)
                r.note("userInfo") { decoder.userInfo.count }
                r.note("keyed") { try decoder.container(keyedBy: Key.self).allKeys.count }
                r.note("unkeyed") { try decoder.unkeyedContainer().count as Any }
                let s = try decoder.singleValueContainer()
                r.path("single", s.codingPath)
                r.note("nil") { s.decodeNil() }
                r.note("Bool") { try s.decode(Bool.self) }
                r.note("String") { try s.decode(String.self) }
                r.note("Double") { try s.decode(Double.self) }
                r.note("Float") { try s.decode(Float.self) }
                r.note("Int") { try s.decode(Int.self) }
                r.note("Int8") { try s.decode(Int8.self) }
                r.note("Int16") { try s.decode(Int16.self) }
                r.note("Int32") { try s.decode(Int32.self) }
                r.note("Int64") { try s.decode(Int64.self) }
                r.note("Int128") { try s.decode(Int128.self) }
                r.note("UInt") { try s.decode(UInt.self) }
                r.note("UInt8") { try s.decode(UInt8.self) }
                r.note("UInt16") { try s.decode(UInt16.self) }
                r.note("UInt32") { try s.decode(UInt32.self) }
                r.note("UInt64") { try s.decode(UInt64.self) }
                r.note("UInt128") { try s.decode(UInt128.self) }
                r.note("Int?") { try s.decode(Int?.self) as Any }
                r.note("[Int]") { try s.decode([Int].self) }
                r.note("[String: Int]") { try s.decode([String: Int].self) }
                r.note("Date") { try s.decode(Date.self) }
                r.note("Data") { try s.decode(Data.self) }
                r.note("URL") { try s.decode(URL.self) }
                r.note("Decimal") { try s.decode(Decimal.self) }
                r.note("any") { try s.decode(AnyJSONValue.self) }
            }
        }
    }

    @Test("Errors thrown inside a custom init(from:) and caught there behave the same")
    func caughtErrors() {
        // A malformed number is Foundation's internal parser error until it reaches the top level:
        // code that catches only DecodingError does not catch it, in either decoder.
        expectSameRecording(#"{"a":01,"b":"\x","c":1.5}"#) { decoder, r in
            let c = try decoder.container(keyedBy: Key.self)
            for name in ["a", "b", "c"] {
                r.note("\(name) as Int, catching DecodingError only") {
                    do { return try c.decode(Int.self, forKey: Key(name)) } catch let error as DecodingError { return "caught \(Diff.describe(error))" }
                }
                r.note("\(name) as String via try?") { (try? c.decode(String.self, forKey: Key(name))) as Any }
            }
        }
    }
}

@Suite("FastJSONDecoder entry points", .sharing)
struct FastJSONEntryPointTests {
    @Test("Stands in only for a plain JSONDecoder with default options")
    func standIn() {
        #expect(FastJSONDecoder.canStandIn(for: JSONDecoder()))
        let options: [(JSONDecoder) -> Void] = [
            { $0.dateDecodingStrategy = .secondsSince1970 },
            { $0.dateDecodingStrategy = .iso8601 },
            { $0.dataDecodingStrategy = .deferredToData },
            { $0.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+", negativeInfinity: "-", nan: "n") },
            { $0.keyDecodingStrategy = .convertFromSnakeCase },
            { $0.allowsJSON5 = true },
            { $0.assumesTopLevelDictionary = true },
            { $0.userInfo = [CodingUserInfoKey(rawValue: "k")!: 1] },
        ]
        for option in options {
            let decoder = JSONDecoder()
            option(decoder)
            #expect(!FastJSONDecoder.canStandIn(for: decoder))
        }
        final class Subclass: JSONDecoder, @unchecked Sendable {} // @unchecked: adds no state to JSONDecoder.
        #expect(!FastJSONDecoder.canStandIn(for: Subclass()))
    }

    @Test("With a configured decoder it decodes exactly as that decoder does")
    func fallsBack() throws {
        struct Snake: Decodable, Equatable { let userName: String }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let value = try FastJSONDecoder.decode(Snake.self, from: Data(#"{"user_name":"x"}"#.utf8), standingInFor: decoder)
        #expect(value == Snake(userName: "x"))
        let plain = try FastJSONDecoder.decode([Int].self, from: Data("[1]".utf8), standingInFor: JSONDecoder())
        #expect(plain == [1])
    }

    @Test("Decoders and containers that outlive the decode call stay valid")
    func escapingContainers() throws {
        final class Escaped: Decodable {
            var decoder: (any Decoder)?
            var keyed: KeyedDecodingContainer<AnyJSONValue.Key>?
            var unkeyed: (any UnkeyedDecodingContainer)?
            required init(from decoder: any Decoder) throws {
                self.decoder = decoder
                keyed = try decoder.container(keyedBy: AnyJSONValue.Key.self)
                unkeyed = try keyed?.nestedUnkeyedContainer(forKey: .init(stringValue: "list"))
            }
        }
        let escaped = try FastJSONDecoder.decode(Escaped.self, from: Data(#"{"list":[{"deep":{"x":"text"}}],"n":5}"#.utf8))
        // Everything the document owned must still be there.
        #expect(try escaped.keyed?.decode(Int.self, forKey: .init(stringValue: "n")) == 5)
        var unkeyed = try #require(escaped.unkeyed)
        let first = try unkeyed.nestedContainer(keyedBy: AnyJSONValue.Key.self)
        let deep = try first.nestedContainer(keyedBy: AnyJSONValue.Key.self, forKey: .init(stringValue: "deep"))
        #expect(try deep.decode(String.self, forKey: .init(stringValue: "x")) == "text")
        #expect(deep.codingPath.map(\.stringValue) == ["list", "Index 0", "deep"])
    }
}
