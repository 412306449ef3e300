import Foundation

extension JSONValue: Codable {
    /// Decodes whatever JSON value is there. A number `Double` cannot hold fails as the decoder
    /// says (Foundation's refuses such JSON as invalid).
    public init(from decoder: any Decoder) throws {
        // A container of the wrong kind fails before anything is read: the order decides only speed.
        if let object = try? decoder.container(keyedBy: JSONValueKey.self) {
            let keys = object.allKeys
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(keys.count)
            for key in keys {
                members[key.stringValue] = try object.decode(JSONValue.self, forKey: key)
            }
            self = .object(members)
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            if let count = array.count { elements.reserveCapacity(count) }
            while !array.isAtEnd {
                elements.append(try array.decode(JSONValue.self))
            }
            self = .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let text = try? single.decode(String.self) {
            self = .string(text)
        } else {
            self = .number(try single.decode(Double.self))
        }
    }

    /// Encodes the value as the JSON it stands for. A number that is not finite has no JSON form:
    /// the encoder refuses it (a body with one fails with `.invalidRequest`).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .number(let number):
            var single = encoder.singleValueContainer()
            try single.encode(number)
        case .string(let text):
            var single = encoder.singleValueContainer()
            try single.encode(text)
        case .array(let elements):
            var array = encoder.unkeyedContainer()
            for element in elements { try array.encode(element) }
        case .object(let members):
            var object = encoder.container(keyedBy: JSONValueKey.self)
            for (key, member) in members { try object.encode(member, forKey: JSONValueKey(key)) }
        }
    }
}
