import Foundation
@testable import FastJSON
@testable import NetworkLayer

/// Query and JSON parameter encoding: the input builds a random parameter dictionary (strings with
/// reserved and non-ASCII characters, integers of several widths, any `Double` or `Float` bit
/// pattern, decimals, dates, URLs, UUIDs, nulls and nils, `JSONValue`s, arrays and dictionaries
/// nested a few levels), converted as `params` are (`ParameterValue.object(from:)`).
///
/// Checked: the conversion refuses exactly the dictionaries holding an infinite or NaN number; the
/// query string, in each array encoding, reads back through `URLComponents` as exactly the pairs
/// the parameters stand for (names as `a[b]` / `a[]`, values as their text, which parses back to
/// the same number); the JSON body reads back through `JSONSerialization` as the same values, and
/// through the library's own decoder as a `JSONValue`; what `JSONSerialization` reads converts back
/// (as an `Encodable` form body's fields do) to the same JSON bytes.
enum ParametersFuzz {
    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        let members = ParameterModel.members(from: &bytes, depth: 0)
        let input = members.mapValues(\.sendable)
        let model = ParameterModel.object(members)
        let converted: ParameterValue
        do {
            converted = try ParameterValue.object(from: input)
        } catch {
            try require(model.holdsNonFiniteNumber, "the parameters \(model) were refused: \(error)")
            return
        }
        try require(!model.holdsNonFiniteNumber, "the parameters \(model) hold a number with no JSON form, yet were accepted")

        for arrays in [ArrayEncoding.repeatedKeys, .brackets, .commaSeparated] {
            try checkQuery(converted.queryString(arrays: arrays), model: model, arrays: arrays)
        }
        try checkJSON(converted.jsonData(), of: converted, model: model)
    }

    // MARK: Query

    private static func checkQuery(_ query: String, model: ParameterModel, arrays: ArrayEncoding) throws(FuzzFailure) {
        let expected = model.queryPairs(arrays: arrays)
        guard !query.isEmpty else {
            try require(expected.isEmpty, "the query (\(arrays)) is empty, not \(expected.count) pairs for \(model)")
            return
        }
        guard let components = URLComponents(string: "http://example.com/?" + query),
              let items = components.percentEncodedQueryItems else {
            throw FuzzFailure("URLComponents refuses the query (\(arrays)) \(query.debugDescription)")
        }
        try require(items.count == expected.count,
                    "the query (\(arrays)) \(query.debugDescription) has \(items.count) pairs, not \(expected.count) for \(model)")
        for (item, pair) in zip(items, expected) {
            // Decoded here, not by URLComponents, whose decoding drops a U+FEFF at the start.
            let name = percentDecoded(item.name)
            try require(name == pair.name, "the query (\(arrays)) has the name \(String(describing: name?.debugDescription)), not \(pair.name.debugDescription), in \(query.debugDescription)")
            switch pair.value {
            case .list(let elements):
                // Items stay apart: each is percent-encoded, commas inside it included. An empty
                // array is `name=` (as OpenAPI's form style without explode writes it).
                let pieces = (item.value ?? "").split(separator: ",", omittingEmptySubsequences: false).map { percentDecoded(String($0)) ?? "\u{FFFD}" }
                let expectedPieces = elements.isEmpty ? [.string("")] : elements.map { $0.isScalar ? $0 : .string("") }
                try require(pieces.count == expectedPieces.count && zip(pieces, expectedPieces).allSatisfy { $1.isWritten(as: $0) },
                            "the query (\(arrays)) gives \(pair.name.debugDescription) the list \(pieces), not \(elements)")
            case .scalar(let scalar):
                let value = percentDecoded(item.value ?? "")
                try require(value.map { scalar.isWritten(as: $0) } == true,
                            "the query (\(arrays)) gives \(pair.name.debugDescription) the value \(String(describing: value?.debugDescription)), not \(scalar)")
            }
        }
    }

    /// `%XX` escapes decoded (nil for a broken escape or bytes that are not UTF-8); nothing else changed.
    private static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    // MARK: JSON

    private static func checkJSON(_ json: Data, of converted: ParameterValue, model: ParameterModel) throws(FuzzFailure) {
        let text = String(decoding: json, as: UTF8.self)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: json)
        } catch {
            throw FuzzFailure("JSONSerialization refuses the body \(text.debugDescription): \(error)")
        }
        // JSONSerialization drops a U+FEFF at the start of a string and after an escape (JSONDecoder
        // keeps it): its reading is compared where there is none, the decoders' always.
        try require(model.holdsBOM || model.isRead(as: object), "the body \(text.debugDescription) reads back as \(object), not \(model)")
        for (decoder, decode) in [("JSONDecoder", { try JSONDecoder().decode(JSONValue.self, from: json) }),
                                  ("the library's decoder", { try FastJSONDecoder.decode(JSONValue.self, from: json) })] {
            do {
                let value = try decode()
                try require(model.isDecoded(as: value), "\(decoder) reads the body \(text.debugDescription) as \(value), not \(model)")
            } catch let failure as FuzzFailure {
                throw failure
            } catch {
                throw FuzzFailure("\(decoder) refuses the body \(text.debugDescription): \(error)")
            }
        }
        // Read back as an `Encodable` form body's fields are, it is the same parameters (a
        // decimal kept to Double's precision, so compared where that is exact).
        guard !model.holdsDecimal else { return }
        let again: ParameterValue
        do {
            again = try ParameterValue.fromJSON(json)
        } catch {
            throw FuzzFailure("the body \(text.debugDescription), read back, cannot be converted again: \(error)")
        }
        try require(same(again, converted), "the body \(text.debugDescription), read back, is \(String(decoding: again.jsonData(), as: UTF8.self).debugDescription)")
    }

    /// The same parameters: strings exactly, numbers by value.
    private static func same(_ a: ParameterValue, _ b: ParameterValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.string(let x), .string(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(same)
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && same($0.value, $1.value) }
        case (.integer(let x), .integer(let y)): return x == y
        case (.unsignedInteger(let x), .unsignedInteger(let y)): return x == y
        case (.integer(let x), .unsignedInteger(let y)), (.unsignedInteger(let y), .integer(let x)): return x >= 0 && UInt64(x) == y
        case (.double(let x), .double(let y)): return x == y
        // A Double's JSON text may read back as an integer: `-2.8483943054992686e+18` is the
        // integer -2848394305499268600, whose nearest Double is the original.
        case (.integer(let x), .double(let y)), (.double(let y), .integer(let x)): return Double(x) == y
        case (.unsignedInteger(let x), .double(let y)), (.double(let y), .unsignedInteger(let x)): return Double(x) == y
        default: return false
        }
    }
}
