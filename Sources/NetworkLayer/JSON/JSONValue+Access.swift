import Foundation

extension JSONValue {
    /// The member named `key` of an object; `nil` when this is not an object or has no such member.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` of an array; `nil` when this is not an array or `index` is out of range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The text of a string; `nil` for any other kind.
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The value of a number; `nil` for any other kind.
    public var doubleValue: Double? {
        guard case .number(let number) = self else { return nil }
        return number
    }

    /// The value of a number that is a whole number `Int` can hold; `nil` for a fraction, a
    /// number beyond `Int`'s range, or any other kind. Exact up to 2^53.
    public var intValue: Int? {
        guard case .number(let number) = self else { return nil }
        return Int(exactly: number)
    }

    /// The value of `true` or `false`; `nil` for any other kind (no number or string counts as one).
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The elements of an array; `nil` for any other kind.
    public var arrayValue: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The members of an object; `nil` for any other kind.
    public var objectValue: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return members
    }
}
