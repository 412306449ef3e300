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
/// Numbers are `Double`s (integers exact up to 2^53, as in JavaScript). As a response type the
/// body is read with its keys as sent, whatever the decoder's key strategy. It encodes back to the
/// same JSON, so it can be sent as a body (`body = .json(value)`) or in `params`.
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
