import Foundation

extension ParameterValue {
    /// Reads JSON (an `Encodable`'s, for a form body) as parameters: integers exactly (as `Int64`,
    /// else `UInt64`), other numbers as `Double`, strings exactly as written, object keys sorted
    /// (``keyPrecedes(_:_:)``).
    /// Not through `JSONSerialization`, which drops a U+FEFF at the start of a string and after an escape.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` when `json` is not JSON or holds a number
    ///   with no finite `Double`.
    static func fromJSON(_ json: Data) throws(NetworkError) -> ParameterValue {
        do {
            return try JSONDecoder().decode(Reading.self, from: json).value
        } catch {
            throw .invalidRequest(.init(reason: "the body's JSON could not be read back for form encoding: \(HTTPResponse.describe(error))",
                                        underlyingError: error))
        }
    }

    /// The order of object keys wherever parameters are sorted: by their UTF-8 bytes, a total
    /// order (`String`'s `<` is not one between precomposed and decomposed keys, so the same
    /// parameters could encode to different bytes).
    static func keyPrecedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    private struct Reading: Decodable {
        let value: ParameterValue

        init(from decoder: any Decoder) throws {
            if let object = try? decoder.container(keyedBy: JSONValueKey.self) {
                var members: [(key: String, value: ParameterValue)] = []
                for key in object.allKeys.sorted(by: { ParameterValue.keyPrecedes($0.stringValue, $1.stringValue) }) {
                    members.append((key.stringValue, try object.decode(Reading.self, forKey: key).value))
                }
                value = .object(members)
            } else if var array = try? decoder.unkeyedContainer() {
                var items: [ParameterValue] = []
                while !array.isAtEnd { items.append(try array.decode(Reading.self).value) }
                value = .array(items)
            } else {
                let single = try decoder.singleValueContainer()
                if single.decodeNil() {
                    value = .null
                } else if let flag = try? single.decode(Bool.self) {
                    value = .bool(flag)
                } else if let integer = try? single.decode(Int64.self) {
                    value = .integer(integer)
                } else if let unsigned = try? single.decode(UInt64.self) {
                    value = .unsignedInteger(unsigned)
                } else if let number = try? single.decode(Double.self) {
                    value = .double(number)
                } else {
                    value = .string(try single.decode(String.self))
                }
            }
        }
    }
}
