import Foundation

/// Any JSON, decoded the way generic code inspects it (`AnyJSON`-style): a keyed container, else
/// an unkeyed one, else a single value tried as null, Bool, Int, Double and String in turn, each
/// probe behind `try?`. An object's keys are decoded in sorted order, so that the first error is
/// the same whatever order a decoder lists its keys in.
indirect enum FuzzJSON: Decodable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([FuzzJSON])
    case object([String: FuzzJSON])

    struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            var members: [String: FuzzJSON] = [:]
            for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                members[key.stringValue] = try object.decode(FuzzJSON.self, forKey: key)
            }
            self = .object(members)
        } else if var array = try? decoder.unkeyedContainer() {
            var elements: [FuzzJSON] = []
            while !array.isAtEnd {
                elements.append(try array.decode(FuzzJSON.self))
            }
            self = .array(elements)
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
