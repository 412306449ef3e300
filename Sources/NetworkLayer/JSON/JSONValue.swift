import Foundation

/// Any JSON value, for responses (and bodies and parameters) without a type written for them.
///
/// Its subscripts return `nil` for a missing key, an index out of range or another kind, so a
/// path reads in one optional chain: `any["data"]?["items"]?[0]?["name"]?.stringValue`.
///
/// Numbers are `Double`s (integers exact up to 2^53). As a response type the body is read with
/// its keys as sent, whatever the decoder's key strategy.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number; integers are exact up to 2^53.
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// An object; its keys are unordered.
    case object([String: JSONValue])
}
