import Foundation

/// The names of the headers and query items whose values are secrets for one request, decided
/// once when the request is prepared and carried with it:
/// - every header and query item its ``Authentication`` added;
/// - every name declared secret by the manager (``NetworkManager/redactedHeaderNames``,
///   ``NetworkManager/redactedQueryItemNames``), the provider (``ServiceProvider/secretHeaderNames``,
///   ``ServiceProvider/secretQueryItemNames``), the request (``BaseRequest/secretHeaderNames``,
///   ``BaseRequest/secretQueryItemNames``), or `adapt(_:)` with `secret: true`;
/// - every name the ``Redactor``'s secret-looking list matches: a safety net, never the only one.
///
/// Everything that shows a request (the log, ``NetworkLogEntry``, errors, copy-as-curl, recorded
/// mocks) redacts by this set, and a redirect to another origin leaves these headers behind. An
/// interceptor's `secret: false` makes a lookalike public, never a credential field or a declared
/// secret. The set also keys the response cache's partition (``cacheOwnerHeaders``). Lowercased.
struct SecretNames: Sendable, Equatable {
    private(set) var headers: Set<String> = []
    /// Lowercased query item names (percent-decoded).
    private(set) var queryItems: Set<String> = []
    /// The names in ``headers`` only because they look secret: an interceptor's `secret: false` may make them public.
    private var lookalikeHeaders: Set<String> = []
    /// Header names an interceptor declared public: the list of secret-looking names no longer applies to them.
    private(set) var publicHeaders: Set<String> = []
    /// Header names whose values identify the caller although they are public (a key id).
    private var callerHeaders: Set<String> = []
    /// Secret header names whose values do not identify the caller: they change with every
    /// attempt (a timestamped signature, a nonce), so keying the cache by them would never hit.
    private var perAttemptHeaders: Set<String> = []

    /// The credential fields HTTP itself defines: secret whatever a request declares.
    static let alwaysSecretHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    init() {}

    init(headers: some Sequence<String>, queryItems: some Sequence<String>) {
        for name in headers { insert(header: name) }
        for name in queryItems { insert(queryItem: name) }
    }

    mutating func insert(header name: String) {
        let name = Self.folded(name)
        headers.insert(name)
        lookalikeHeaders.remove(name)
        publicHeaders.remove(name)
    }

    /// Adds a header name the list of secret-looking names matches, unless it was declared public.
    mutating func insert(lookalikeHeader name: String) {
        let name = Self.folded(name)
        guard !publicHeaders.contains(name), !headers.contains(name) else { return }
        headers.insert(name)
        lookalikeHeaders.insert(name)
    }

    /// Forgets a header name declared secret (a later declaration says otherwise).
    mutating func remove(header name: String) {
        let name = Self.folded(name)
        headers.remove(name)
        lookalikeHeaders.remove(name)
    }

    /// Makes a header public, as an interceptor's `secret: false` says, unless it is a credential
    /// field or secret by a declaration (not only by its looks).
    mutating func insert(publicHeader name: String) {
        let name = Self.folded(name)
        guard !Self.alwaysSecretHeaders.contains(name), !headers.contains(name) || lookalikeHeaders.contains(name) else { return }
        headers.remove(name)
        lookalikeHeaders.remove(name)
        publicHeaders.insert(name)
    }

    /// Says whether a header's value identifies the caller to the response cache (see ``cacheOwnerHeaders``).
    mutating func insert(header name: String, identifiesCaller: Bool) {
        let name = Self.folded(name)
        if identifiesCaller {
            callerHeaders.insert(name)
            perAttemptHeaders.remove(name)
        } else {
            perAttemptHeaders.insert(name)
            callerHeaders.remove(name)
        }
    }

    func isDeclaredPublic(header name: String) -> Bool {
        !publicHeaders.isEmpty && publicHeaders.contains(Self.folded(name))
    }

    /// The headers whose values key the response cache's partition, besides `Authorization`
    /// (``cacheKeysAuthorization``): every secret header and the public ones declared to identify
    /// the caller, less the secret ones declared per attempt (`identifiesCaller: false`).
    var cacheOwnerHeaders: Set<String> {
        guard !callerHeaders.isEmpty || !perAttemptHeaders.isEmpty else { return headers }
        return headers.union(callerHeaders).subtracting(perAttemptHeaders)
    }

    /// Whether `Authorization` keys the response cache's partition: unless declared per attempt
    /// (a signature in `Authorization`, as AWS Signature V4 sends).
    var cacheKeysAuthorization: Bool {
        perAttemptHeaders.isEmpty || !perAttemptHeaders.contains("authorization")
    }

    /// Adds a query item name (as decoded: `api_key`, not `api%5Fkey`).
    mutating func insert(queryItem name: String) { queryItems.insert(Self.folded(name)) }

    /// Adds every name of `other`, and what it declared public or identifying: `other`'s
    /// declarations are the later ones.
    mutating func formUnion(_ other: SecretNames) {
        for name in other.headers {
            if other.lookalikeHeaders.contains(name) { insert(lookalikeHeader: name) } else { insert(header: name) }
        }
        for name in other.publicHeaders { insert(publicHeader: name) }
        for name in other.callerHeaders { insert(header: name, identifiesCaller: true) }
        for name in other.perAttemptHeaders { insert(header: name, identifiesCaller: false) }
        queryItems.formUnion(other.queryItems)
    }

    func union(_ other: SecretNames) -> SecretNames {
        var copy = self
        copy.formUnion(other)
        return copy
    }

    func contains(header name: String) -> Bool { headers.contains(Self.folded(name)) }

    func contains(queryItem name: String) -> Bool { queryItems.contains(Self.folded(name)) }

    var isEmpty: Bool { headers.isEmpty && queryItems.isEmpty }

    /// Lowercases ASCII letters only: a name is bytes on the wire, and Unicode case mapping could
    /// make two different names equal.
    static func folded(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return name }
        return String(decoding: name.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
