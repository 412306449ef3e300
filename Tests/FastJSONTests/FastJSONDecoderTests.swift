import Foundation
import Testing
import TestScheduling
@testable import FastJSON

// Every test decodes the same bytes with Foundation's `JSONDecoder()` and with `FastJSONDecoder`
// and expects the same value or the same error (case, type, coding path with key types,
// description). The expectations on Foundation's own behaviour are there to show what is being
// matched, not to test Foundation.

private typealias Diff = JSONDifferential

// MARK: - Types

private struct Product: Codable, Equatable {
    let id: Int
    let name: String
    let price: Double
    let active: Bool
    let tags: [String]
}

private struct Address: Codable, Equatable {
    let street: String
    let city: String
    let zip: String?
}

private struct Customer: Codable, Equatable {
    let id: UInt64
    let name: String
    let email: String?
    let address: Address
    let previous: [Address]
    let orders: [Order]
    let notes: [String: String]?
}

private struct Order: Codable, Equatable {
    let number: Int32
    let total: Double
    let items: [Product]
    let status: Status
    let placed: Date
}

private enum Status: String, Codable, Equatable {
    case open, shipped, cancelled
}

private enum Priority: Int, Codable, Equatable {
    case low = 1, normal = 5, high = 9
}

private enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case rectangle(width: Int, height: Int)
    case labeled(String)
    case pair(Int, Int)
    case empty
}

private struct Optionals: Codable, Equatable {
    let int: Int?
    let string: String?
    let double: Double?
    let float: Float?
    let bool: Bool?
    let int8: Int8?
    let uint64: UInt64?
    let nested: Address?
    let list: [Int]?
    let shape: Shape?
}

private struct Specials: Codable, Equatable {
    let date: Date
    let data: Data
    let url: URL
    let decimal: Decimal
}

private struct OptionalSpecials: Codable, Equatable {
    let date: Date?
    let data: Data?
    let url: URL?
    let decimal: Decimal?
}

private struct Wrapper<T: Codable & Equatable>: Codable, Equatable {
    let value: T
}

private struct Level3: Codable, Equatable { let c: Int }
private struct Level2: Codable, Equatable { let b: Level3 }
private struct Level1: Codable, Equatable { let a: [Level2] }

/// A key whose string value is not ASCII: U+212A KELVIN SIGN, equal as a String to "K".
private struct KelvinKeyed: Decodable, Equatable {
    let value: Int
    enum CodingKeys: String, CodingKey { case value = "\u{212A}" }
}

/// A key with a decomposed é ("e" + U+0301), equal as a String to the precomposed "é".
private struct AccentKeyed: Decodable, Equatable {
    let value: Int
    enum CodingKeys: String, CodingKey { case value = "caf\u{65}\u{301}" }
}

private struct IntKeyedDictionaries: Codable, Equatable {
    let byID: [Int: String]
    let byName: [String: [Double]]
}

// MARK: - Tests

@Suite("FastJSONDecoder matches JSONDecoder", .sharing)
struct FastJSONDecoderTests {
    @Test("Structs, nested structs, arrays of structs, optionals")
    func structs() {
        Diff.expectSame(Product.self, #"{"id":7,"name":"item-00007","price":12.25,"active":true,"tags":["red","small"]}"#)
        Diff.expectSame([Product].self, #"[{"id":1,"name":"a","price":1,"active":false,"tags":[]}, {"tags":["x"],"active":true,"price":-0.5,"name":"b","id":2}]"#)
        Diff.expectSame(Customer.self, """
            {"id": 18446744073709551615, "name": "Ada", "email": null,
             "address": {"street": "1 Loop", "city": "Local", "zip": "127"},
             "previous": [{"street": "2", "city": "B"}],
             "orders": [{"number": 1, "total": 9.99, "status": "shipped", "placed": 700000000.5,
                         "items": [{"id":1,"name":"a","price":1e2,"active":true,"tags":["t"]}]}],
             "notes": {"a": "b", "c": "d"}}
            """)
        Diff.expectSame(Level1.self, #"{"a":[{"b":{"c":1}},{"b":{"c":2}}]}"#)
        Diff.expectSame(Optionals.self, "{}")
        Diff.expectSame(Optionals.self, #"{"int":null,"string":null,"double":null,"float":null,"bool":null,"int8":null,"uint64":null,"nested":null,"list":null,"shape":null}"#)
        Diff.expectSame(Optionals.self, #"{"int":1,"string":"s","double":2.5,"float":0.1,"bool":false,"int8":-128,"uint64":0,"nested":{"street":"s","city":"c","zip":null},"list":[1,2],"shape":{"empty":{}}}"#)
        Diff.expectSame([Int?].self, "[1,null,3]")
        Diff.expectSame([[Int]].self, "[[1,2],[],[3]]")
        Diff.expectSame([[Product]].self, #"[[{"id":1,"name":"a","price":1,"active":false,"tags":[]}],[]]"#)
        Diff.expectSame([String: Product].self, #"{"x":{"id":1,"name":"a","price":1,"active":false,"tags":["q"]}}"#)
    }

    @Test("Errors carry Foundation's case, type, path and description")
    func errorPaths() {
        // keyNotFound, with the path of the container
        Diff.expectSame(Level1.self, #"{"a":[{"b":{"c":1}},{"b":{}}]}"#)
        Diff.expectSame(Customer.self, #"{"id":1,"name":"x","address":{"street":"s"},"previous":[],"orders":[]}"#)
        // typeMismatch, in an array of structs
        Diff.expectSame([Product].self, #"[{"id":1,"name":"a","price":1,"active":false,"tags":[]},{"id":2,"name":5,"price":1,"active":false,"tags":[]}]"#)
        Diff.expectSame([Product].self, #"[{"id":1,"name":"a","price":1,"active":false,"tags":["a",2]}]"#)
        Diff.expectSame([Product].self, #"[{"id":1,"name":"a","price":"1","active":false,"tags":[]}]"#)
        Diff.expectSame([Product].self, #"[{"id":1,"name":"a","price":1,"active":0,"tags":[]}]"#)
        Diff.expectSame([Product].self, #"[{"id":1,"name":"a","price":1,"active":true,"tags":{}}]"#)
        Diff.expectSame([Product].self, #"[{"id":1,"name":"a","price":1,"active":true,"tags":null}]"#)
        Diff.expectSame([Product].self, #"{"id":1}"#)
        Diff.expectSame(Product.self, "[]")
        Diff.expectSame(Product.self, "null")
        Diff.expectSame(Product.self, "12")
        // valueNotFound for null where a value is required
        Diff.expectSame([Product].self, #"[{"id":null,"name":"a","price":1,"active":true,"tags":[]}]"#)
        Diff.expectSame([Product].self, #"[{"id":1,"name":null,"price":1,"active":true,"tags":[]}]"#)
        Diff.expectSame([Product].self, #"[{"id":1,"name":"n","price":null,"active":true,"tags":[]}]"#)
        Diff.expectSame([Product].self, #"[{"id":1,"name":"n","price":1,"active":null,"tags":[]}]"#)
        Diff.expectSame([Product].self, #"[{"id":1,"name":"n","price":1,"active":true,"tags":[null]}]"#)
        Diff.expectSame([Product].self, "[null]")
        Diff.expectSame([Int].self, "[1, null]")
        Diff.expectSame([Double].self, "[1, true]")
        Diff.expectSame([Bool].self, "[true, null]")
        Diff.expectSame([String].self, "null")
        Diff.expectSame([Int].self, "{}")
        // Optionals: wrong type is still an error
        Diff.expectSame(Optionals.self, #"{"int":"1"}"#)
        Diff.expectSame(Optionals.self, #"{"nested":{"street":1}}"#)
        Diff.expectSame(Optionals.self, #"{"list":[1,"2"]}"#)
        Diff.expectSame(Optionals.self, #"{"bool":1}"#)
    }

    @Test("Enums with raw values and with associated values (synthesized Codable)")
    func enums() {
        Diff.expectSame([Status].self, #"["open","shipped","cancelled"]"#)
        Diff.expectSame([Status].self, #"["open","lost"]"#)
        Diff.expectSame([Status].self, #"[1]"#)
        Diff.expectSame([Priority].self, "[1,5,9]")
        Diff.expectSame([Priority].self, "[1,2]")
        Diff.expectSame([Priority].self, #"["1"]"#)
        Diff.expectSame([Shape].self, #"[{"circle":{"radius":1.5}},{"rectangle":{"width":2,"height":3}},{"labeled":{"_0":"x"}},{"pair":{"_0":1,"_1":2}},{"empty":{}}]"#)
        Diff.expectSame([Shape].self, #"[{"circle":{"radius":1.5},"empty":{}}]"#) // two keys
        Diff.expectSame([Shape].self, #"[{}]"#)
        Diff.expectSame([Shape].self, #"[{"square":{}}]"#)
        Diff.expectSame([Shape].self, #"[{"circle":{}}]"#)
        Diff.expectSame([Shape].self, #"[{"circle":{"radius":"big"}}]"#)
        Diff.expectSame([Shape].self, #"[{"circle":{"radius":1},"circle":{"radius":2}}]"#) // a duplicate counts once
        Diff.expectSame([Shape].self, #"[{"empty":null}]"#)
        Diff.expectSame([Shape].self, #"["circle"]"#)
    }

    @Test("Dictionaries with String and Int keys, and duplicate keys (the first wins)")
    func dictionaries() {
        Diff.expectSame([String: Int].self, #"{"a":1,"b":2,"":3}"#)
        Diff.expectSame([String: Int].self, #"{"a":1,"a":2}"#)
        Diff.expectSame([String: Int].self, #"{"a":1,"b":"x"}"#)
        Diff.expectSame([String: [String: Double]].self, #"{"a":{"x":1.5},"b":{}}"#)
        Diff.expectSame([Int: String].self, #"{"1":"a","-2":"b","0":"c"}"#)
        Diff.expectSame([Int: String].self, #"{"1":"a","x":"b"}"#)
        Diff.expectSame([Int: String].self, #"{"01":"a"}"#)
        Diff.expectSame([Int: String].self, #"["a","b"]"#) // Int-keyed dictionaries also decode from arrays of pairs
        Diff.expectSame([Int: String].self, #"[1,"a",2,"b"]"#)
        Diff.expectSame([Int: String].self, #"[1,"a",2]"#)
        Diff.expectSame(IntKeyedDictionaries.self, #"{"byID":{"7":"x"},"byName":{"a":[1,2.5]}}"#)
        Diff.expectSame(Product.self, #"{"id":1,"id":2,"name":"a","price":1,"active":false,"tags":[],"name":"b"}"#)
        Diff.expectSame(Product.self, #"{"id":"bad","id":2,"name":"a","price":1,"active":false,"tags":[]}"#)
        Diff.expectSame(Product.self, #"{"id":2,"id":"bad","name":"a","price":1,"active":false,"tags":[]}"#)
        // Keys equal as Strings but not as bytes: escapes, canonical equivalence.
        Diff.expectSame(Product.self, #"{"\u0069d":1,"n\u0061me":"a","price":1,"active":false,"tags":[]}"#)
        Diff.expectSame([String: Int].self, #"{"caf\u00e9":1,"cafe\u0301":2}"#)
        Diff.expectSame([String: Int].self, "{\"caf\u{E9}\":1,\"cafe\u{301}\":2}")
        // Foundation converts every key of an object when a keyed container opens it: a bad one fails
        // the container even when it is not the key asked for; an object never opened is not checked.
        for key in [#""a\x""#, #""\ud800""#, "\"\u{1}\"", #""\u12""#] {
            Diff.expectSame(Wrapper<Int>.self, #"{\#(key):1,"value":2}"#)
            Diff.expectSame([String: Int].self, #"{"b":1,\#(key):2}"#)
            Diff.expectSame(Wrapper<[Int]>.self, #"{"value":[],"other":{\#(key):1}}"#)
        }
        Diff.expectSame(KelvinKeyed.self, #"{"K":1}"#)
        Diff.expectSame(KelvinKeyed.self, #"{"k":1}"#)
        Diff.expectSame(AccentKeyed.self, "{\"caf\u{E9}\":1}")
        Diff.expectSame(AccentKeyed.self, #"{"caf\u00e9":1}"#)
        // A large object (keys looked up through a table) with duplicates.
        var large = (0..<60).map { "\"k\($0)\":\($0)" }
        large.append("\"k5\":-1")
        Diff.expectSame([String: Int].self, "{" + large.joined(separator: ",") + "}")
        Diff.expectSame(Wrapper<Int>.self, "{" + (0..<40).map { "\"v\($0)\":0" }.joined(separator: ",") + ",\"value\":3,\"value\":4}")
    }

    @Test("Every integer type at its bounds and one past, and the numbers Foundation accepts for integers")
    func integers() {
        func bounds<T: FixedWidthInteger & Codable>(_: T.Type) {
            let below = T.min == 0 ? "-1" : String(T.min.description.dropFirst().description.addingOne(negative: true))
            let above = T.max.description.addingOne(negative: false)
            for text in [T.min.description, T.max.description, below, above, "0", "-0", "1", "-1"] {
                Diff.expectSame([T].self, "[\(text)]")
                Diff.expectSame(Wrapper<T>.self, #"{"value":\#(text)}"#)
                Diff.expectSame(T.self, text)
            }
        }
        bounds(Int.self); bounds(Int8.self); bounds(Int16.self); bounds(Int32.self); bounds(Int64.self)
        bounds(UInt.self); bounds(UInt8.self); bounds(UInt16.self); bounds(UInt32.self); bounds(UInt64.self)
        bounds(Int128.self); bounds(UInt128.self)
        let forms = ["1.0", "1e2", "1E+2", "100e-2", "1.5", "-1.5", "1e-400", "1e400", "0.0", "-0.0", "0e5", "1.",
                     ".5", "01", "-01", "00", "-", "1-2", "1e", "1e+", "2.5e1", "9007199254740993", "9007199254740993.0",
                     "9007199254740993.5", "-9223372036854775808.0", "9223372036854775807.0", "1.00000000000000000001",
                     "12345678901234567890", "123456789012345678901234567890", "1.7976931348623157e308"]
        for text in forms {
            Diff.expectSame([Int].self, "[\(text)]")
            Diff.expectSame([Int8].self, "[\(text)]")
            Diff.expectSame([UInt64].self, "[\(text)]")
            Diff.expectSame([Int128].self, "[\(text)]")
            Diff.expectSame(Wrapper<UInt32>.self, #"{"value":\#(text)}"#)
        }
    }

    @Test("Double and Float: JSON numbers, integers, overflow, underflow, precision")
    func floatingPoint() {
        var texts = ["0", "-0", "0.0", "-0.0", "1", "-1", "12.25", "9.99", "1e400", "-1e400", "1e-400", "4.9e-324", "2.4e-324",
                     "2.2250738585072014e-308", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
                     "123456789012345678901234567890", "0.1", "0.30000000000000004", "1e22", "1e23", "9007199254740993",
                     "3.4028235e38", "3.4028236e38", "3.5e38", "1e-45", "1e-46", "1.4e-45", "1e39",
                     "0.000000000000000000000000000000000000000000000001", "00.5", "01", "1.", ".5", "-", "1e", "1e+", "--1",
                     "1.5e3", "1.5E-3", "1e+05", "1E05", "-0e-0", "123.456e-7",
                     "2.225073858507201136057409796709131975934819546351645648e-308",
                     "0.1000000000000000055511151231257827021181583404541015625"]
        var generator = SeededGenerator(seed: 0xF10A7)
        for _ in 0..<200 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            texts.append("\(value)")
            texts.append(String(format: "%.17g", value))
            texts.append(String(format: "%.3e", value))
        }
        for _ in 0..<100 {
            texts.append("\(Int64.random(in: -999_999...999_999, using: &generator)).\(UInt64.random(in: 0...999_999, using: &generator))")
        }
        // Just below and above the midpoint of two adjacent Floats whose lower one is odd: correct
        // rounding (Foundation's strtof) goes down below it, while rounding to Double first lands
        // on the midpoint itself, which then rounds to the even neighbour above.
        for _ in 0..<40 {
            let lower = Float(bitPattern: 0x3F80_0001 | (UInt32.random(in: 0...0x3F_FFFF, using: &generator) << 1) & 0x7F_FFFF)
            let midpoint = (Double(lower) + Double(lower.nextUp)) / 2 // exact: 25 significant bits
            let exact = String(format: "%.40f", midpoint) // exact for numbers in [1, 2)
            let digits = exact.reversed().drop { $0 == "0" }.reversed()
            let last = digits.last!.wholeNumberValue!
            texts.append(String(digits.dropLast()) + "\(last - 1)" + String(repeating: "9", count: 20))
            texts.append(String(digits) + String(repeating: "0", count: 20) + "1")
        }
        texts.append("1.00000017881393432617187499999999") // 1 + 1.5 × 2^-23, minus a little
        for text in texts {
            Diff.expectSame([Double].self, "[\(text)]")
            Diff.expectSame([Float].self, "[\(text)]")
            Diff.expectSame(Wrapper<Double>.self, #"{"value":\#(text)}"#)
            Diff.expectSame(Wrapper<Float>.self, #"{"value":\#(text)}"#)
        }
        for text in ["NaN", "Infinity", "-Infinity", "nan", "inf", #""NaN""#, #""1.5""#, "true", "null", "[]", "{}"] {
            Diff.expectSame([Double].self, "[\(text)]")
            Diff.expectSame(Wrapper<Float>.self, #"{"value":\#(text)}"#)
            Diff.expectSame(Double.self, text)
        }
    }

    @Test("Strings: escapes, unicode, surrogates, invalid UTF-8, control characters")
    func strings() {
        let valid = [#""""#, #""plain""#, #""\"\\\/\b\f\n\r\t""#, #""\u00e9\u00E9""#, #""\uD83D\uDE00""#, #""\ud83d\ude00 x""#,
                     #""\u0000""#, #""a\u0000b""#, #""\u20AC""#, #""\uFFFF""#, #""\uFEFF""#, "\"é ✓ 😀 \u{7F}\"",
                     "\"\u{10FFFF}\"", #""\/\/""#, #""long \u0041\u0042\u0043 string with several escapes \n and text""#]
        let invalid = [#""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\ud800x""#, #""\ud800\""#, #""\uDBFF\uDBFF""#,
                       #""\u12G4""#, #""\u-123""#, #""\u+123""#, #""\x""#, #""\a""#, #""\'""#, #""\U0041""#,
                       "\"\u{1}\"", "\"a\tb\"", "\"a\nb\"", "\"\u{1F}\"", #""\u00""#, #""\u"#, #""\"#, #""abc"#, #""\uD83D\uDE0""#]
        for text in valid + invalid {
            Diff.expectSame([String].self, "[\(text)]")
            Diff.expectSame(Wrapper<String>.self, #"{"value":\#(text)}"#)
            Diff.expectSame(String.self, text)
            Diff.expectSame(Optionals.self, #"{"string":\#(text)}"#)
            // Never decoded: Foundation only checks a string when it is decoded.
            Diff.expectSame(Wrapper<Int>.self, #"{"unused":\#(text),"value":1}"#)
        }
        // Invalid UTF-8 (raw bytes), in values and keys, simple and escaped strings.
        let badBytes: [[UInt8]] = [[0xFF], [0xC0, 0x80], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80],
                                   [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80]]
        for bytes in badBytes {
            for prefix in ["", "a", "\\n"] {
                let string = Array("\"\(prefix)".utf8) + bytes + Array("\"".utf8)
                Diff.expectSame([String].self, Data(Array("[".utf8) + string + Array("]".utf8)))
                Diff.expectSame(Wrapper<String>.self, Data(Array(#"{"value":"#.utf8) + string + Array("}".utf8)))
                Diff.expectSame(Wrapper<Int>.self, Data(Array("{".utf8) + string + Array(#":0,"value":1}"#.utf8)))
                Diff.expectSame([String: Int].self, Data(Array("{".utf8) + string + Array(":0}".utf8)))
                Diff.expectSame([Int].self, Data(Array("[1,".utf8) + string + Array("]".utf8))) // not a number
            }
        }
        // Long strings (the word-at-a-time scan), with escapes and unicode at every offset.
        for length in [7, 8, 9, 15, 16, 17, 31, 33, 100] {
            let base = String(repeating: "abcdefgh", count: 20).prefix(length)
            for insert in ["", "\\n", "é", "\\u00e9", "\\\"", "\u{1}"] {
                for offset in stride(from: 0, through: length, by: max(1, length / 4)) {
                    var text = String(base)
                    text.insert(contentsOf: insert, at: text.index(text.startIndex, offsetBy: offset))
                    Diff.expectSame([String].self, "[\"\(text)\"]")
                }
            }
        }
    }

    @Test("Date, Data, URL and Decimal as a default JSONDecoder decodes them")
    func specialTypes() {
        Diff.expectSame(Specials.self, #"{"date":0,"data":"AQID","url":"https://example.com/a?b=c#d","decimal":1.10}"#)
        Diff.expectSame(Specials.self, #"{"date":-123456.789,"data":"","url":"relative/path","decimal":-0}"#)
        for date in ["0", "1.5", "-1", "1e10", "700000000", #""2024-01-01T00:00:00Z""#, "null", "true", "[]", "{}", "1e400", "01"] {
            Diff.expectSame([Date].self, "[\(date)]")
            Diff.expectSame(OptionalSpecials.self, #"{"date":\#(date)}"#)
            Diff.expectSame(Date.self, date)
        }
        for data in [#""AQID""#, #""AQI=""#, #""AQI""#, #""AQ==""#, #""A""#, #""!!!!""#, #""AQ\u0049D""#, #""AQ\nID""#, #""AQ ID""#,
                     #""""#, "1", "null", "[1,2]", #""aGVsbG8gd29ybGQ=""#, #""\ud800""#] {
            Diff.expectSame([Data].self, "[\(data)]")
            Diff.expectSame(OptionalSpecials.self, #"{"data":\#(data)}"#)
        }
        for url in [#""https://example.com""#, #""http://a b""#, #""""#, #""/a/b""#, #""mailto:x@y.z""#, #""http://[::1]:80/""#,
                    #""ht tp://x""#, #""http://ex\u00e4mple.com""#, "1", "null", #""\udc00""#] {
            Diff.expectSame([URL].self, "[\(url)]")
            Diff.expectSame(OptionalSpecials.self, #"{"url":\#(url)}"#)
        }
        for decimal in ["1.10", "0", "-0", "123456789012345678901234567890.123", "1e-130", "1e127", "1e200", "-1e-200",
                        "3.14159265358979323846264338327950288419716939937510", "01", "1.", "-", "1e400", #""1.5""#, "null", "true", "[]"] {
            Diff.expectSame([Decimal].self, "[\(decimal)]")
            Diff.expectSame(OptionalSpecials.self, #"{"decimal":\#(decimal)}"#)
            Diff.expectSame(Decimal.self, decimal)
        }
        Diff.expectSame(OptionalSpecials.self, #"{"date":null,"data":null,"url":null,"decimal":null}"#)
    }

    @Test("Decodes concurrently from many tasks")
    func concurrent() async {
        let body = Data((#"["# + (0..<500).map { #"{"id":\#($0),"name":"n\#($0)","price":\#($0).5,"active":true,"tags":["t"]}"# }
            .joined(separator: ",") + "]").utf8)
        let expected = try? JSONDecoder().decode([Product].self, from: body)
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<20).allSatisfy { _ in (try? FastJSONDecoder.decode([Product].self, from: body)) == expected } }
            }
            for await same in group { #expect(same) }
        }
    }

    @Test("Top-level fragments")
    func fragments() {
        Diff.expectSame(Int.self, "5")
        Diff.expectSame(Int.self, " 5 ")
        Diff.expectSame(String.self, #""x""#)
        Diff.expectSame(Bool.self, "true")
        Diff.expectSame(Bool.self, "false")
        Diff.expectSame(Int?.self, "null")
        Diff.expectSame(Int.self, "null")
        Diff.expectSame(Double.self, "-0.5")
        Diff.expectSame([Int].self, "[]")
        Diff.expectSame([String: Int].self, "{}")
        Diff.expectSame(Status.self, #""open""#)
        Diff.expectSame(Priority.self, "9")
    }

    @Test("Malformed JSON is rejected the same way (and what Foundation leaves unchecked is accepted)")
    func malformed() {
        let documents = ["", " ", "\n\t", "[", "]", "{", "}", "[1,2", #"{"a":"#, #"{"a""#, #"{"a":1"#, #""abc"#, "[1]]", "{} x", "[1] [2]",
                         "[,]", "{,}", "[1,,2]", #"{"a" 1}"#, #"{"a":1 "b":2}"#, "{1:2}", "{'a':1}", "[1 2]", "tru", "nul", "fals",
                         "truex", "[truex]", "[nulll]", "falsey", "[NaN]", "[Infinity]", "[+1]", "[.5]", "[-]", "[01]", "[1.]",
                         "[1e]", "//x\n[1]", "[1]//", "/*x*/[1]", "[1,]", #"{"a":1,}"#, "[1,]]", #"{"a":1,,}"#, "[,1]",
                         "[\"a\":1]", #"{"a":[1,}"#, "\u{FEFF}[1]", "[\u{0}]", "[1]\u{0}", "[\"\\u\"]", "[\"\\u12\"]", "[\"\\u12\"\"]",
                         "[1\u{A0}]", "\u{A0}[1]", "[\r\n1\r\n]", "[1\u{B}]"]
        for document in documents {
            Diff.expectSame([Int].self, document)
            Diff.expectSame(Wrapper<Int>.self, document)
            Diff.expectSame(AnyJSONValue.self, document)
        }
        // Only decoded values are checked: malformed numbers and strings elsewhere are fine.
        Diff.expectSame(Wrapper<Int>.self, #"{"a":01,"b":1-2,"c":"\x","d":1.2.3,"value":1}"#)
        Diff.expectSame(Wrapper<Int>.self, #"{"value":01}"#)
        Diff.expectSame(Wrapper<Int>.self, #"{"value":1-2}"#)
        Diff.expectSame(Wrapper<Int>.self, #"{"value":--1}"#)
        // Byte order marks and other encodings.
        Diff.expectSame([Int].self, Data([0xEF, 0xBB, 0xBF] + Array("[1,2]".utf8)))
        Diff.expectSame([Int].self, Data([0xEF, 0xBB, 0xBF]))
        Diff.expectSame([Int].self, "[1,2]".data(using: .utf16)!) // with a BOM
        Diff.expectSame([Int].self, "[1,2]".data(using: .utf16LittleEndian)!)
        Diff.expectSame([Int].self, "[1,2]".data(using: .utf16BigEndian)!)
        Diff.expectSame([Int].self, "[1,2]".data(using: .utf32LittleEndian)!)
        Diff.expectSame([Int].self, "[1,2]".data(using: .utf32BigEndian)!)
        Diff.expectSame(Int.self, "7".data(using: .utf16LittleEndian)!)
        Diff.expectSame([Int].self, Data([0xFE, 0xFF]))
        Diff.expectSame([Int].self, Data([0xFF]))
        // Nesting: 512 levels are allowed, 513 are not.
        for depth in [511, 512, 513, 600] {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            Diff.expectSame(AnyJSONValue.self, nested)
            let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
            Diff.expectSame(AnyJSONValue.self, objects)
        }
        // Whitespace everywhere it may be.
        Diff.expectSame(Product.self, " \t\r\n{ \"id\" : 1 , \"name\" :\"a\",\"price\": 1 ,\"active\" : true , \"tags\" : [ \"a\" , \"b\" ] } \n")
    }
}

private extension String {
    /// The decimal string of this magnitude plus one, negated when asked.
    func addingOne(negative: Bool) -> String {
        var digits = Array(self.utf8).map { Int($0) - 48 }
        var i = digits.count - 1
        while i >= 0 {
            if digits[i] == 9 { digits[i] = 0; i -= 1 } else { digits[i] += 1; break }
        }
        if i < 0 { digits.insert(1, at: 0) }
        return (negative ? "-" : "") + digits.map(String.init).joined()
    }
}
