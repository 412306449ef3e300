import Foundation

/// The names of the headers and query items whose values are secrets for one request: facts,
/// decided once when the request is prepared and carried with it.
///
/// A prepared request's set holds
/// - every header and query item its ``Authentication`` added (`Authorization`, the API-key
///   header or query item, whatever its name);
/// - every name declared secret: the manager's ``NetworkManager/redactedHeaderNames`` and
///   ``NetworkManager/redactedQueryItemNames``, the provider's
///   ``ServiceProvider/secretHeaderNames`` and ``ServiceProvider/secretQueryItemNames``, the
///   request's ``BaseRequest/secretHeaderNames`` and ``BaseRequest/secretQueryItemNames``, and
///   the headers the provider's `adapt(_:)` set with `secret: true`;
/// - every header and query item the request carries whose name the ``Redactor``'s list of
///   secret-looking names matches: a safety net on top of the facts, never the only mechanism.
///
/// Everything that shows a request (the text log, ``NetworkLogEntry``, error descriptions,
/// copy-as-curl, mock sidecars written by record mode) redacts by this set, and a redirect to
/// another origin leaves these headers behind. To make one more name secret, insert it here
/// where the request is built: nothing else needs to know.
///
/// Names are compared ignoring ASCII case and stored lowercased.
struct SecretNames: Sendable, Equatable {
    /// Lowercased header names.
    private(set) var headers: Set<String> = []
    /// Lowercased query item names (percent-decoded).
    private(set) var queryItems: Set<String> = []

    init() {}

    init(headers: some Sequence<String>, queryItems: some Sequence<String>) {
        for name in headers { insert(header: name) }
        for name in queryItems { insert(queryItem: name) }
    }

    /// Adds a header name.
    mutating func insert(header name: String) { headers.insert(Self.folded(name)) }

    /// Adds a query item name (as decoded: `api_key`, not `api%5Fkey`).
    mutating func insert(queryItem name: String) { queryItems.insert(Self.folded(name)) }

    /// Adds every name of `other`.
    mutating func formUnion(_ other: SecretNames) {
        headers.formUnion(other.headers)
        queryItems.formUnion(other.queryItems)
    }

    /// This set with every name of `other`.
    func union(_ other: SecretNames) -> SecretNames {
        var copy = self
        copy.formUnion(other)
        return copy
    }

    /// Whether the header of this name (any case) is in the set.
    func contains(header name: String) -> Bool { headers.contains(Self.folded(name)) }

    /// Whether the query item of this name (decoded, any case) is in the set.
    func contains(queryItem name: String) -> Bool { queryItems.contains(Self.folded(name)) }

    var isEmpty: Bool { headers.isEmpty && queryItems.isEmpty }

    /// Lowercases ASCII letters only: a name is bytes on the wire, and Unicode case mapping could
    /// make two different names equal.
    static func folded(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return name }
        return String(decoding: name.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
