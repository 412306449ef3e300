import Foundation

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// A string: `let name: JSONValue = "Ada"`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A number: `let count: JSONValue = 3` (exact up to 2^53).
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A number: `let price: JSONValue = 9.99`.
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array: `let tags: JSONValue = ["a", 1, true]`.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object: `let user: JSONValue = ["name": "Ada", "age": 36]`; a repeated key keeps its last value.
    public init(dictionaryLiteral members: (String, JSONValue)...) {
        self = .object(Dictionary(members, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text, keys sorted: `{"name":"Ada","tags":["a","b"]}`.
    public var description: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else {
            // Only a number that is not finite has no JSON form.
            if case .number(let number) = self { return "\(number)" }
            return "<not representable as JSON>"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
