import Foundation

/// Any JSON value, for responses (and bodies and parameters) without a type written for them.
///
/// Use it as a response type and walk it with subscripts, which return `nil` for a missing key,
/// an index out of range or a value of another kind, so a path reads in one optional chain:
///
/// ```swift
/// let any = try await Net.perform(Call<JSONValue>(...))
/// let name = any["data"]?["items"]?[0]?["name"]?.stringValue
/// ```
///
/// Numbers are `Double`s: integers are exact up to 2^53 (9,007,199,254,740,992), as in
/// JavaScript; fractions and exponents are what `Double` makes of them. As a response type, the
/// body is read as sent, whatever key strategy the request's or provider's decoder has. It
/// encodes back to the same JSON (object keys in any order), so it can be sent as a body
/// (`body = .json(value)`) or put in `params`.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number; integers are exact up to 2^53.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; its keys are unordered.
    case object([String: JSONValue])
}
