import Foundation

/// What the response cache needs to know about a request: plain values, built by the request
/// pipeline from the request it is about to send.
struct CacheRequest: Sendable {
    /// The method as sent, e.g. `GET` (compared case-sensitively, as RFC 9110 says).
    var method: String
    /// The absolute URL as sent (a fragment is ignored).
    var url: String
    /// Every request header the pipeline sends, in order, a name repeated once per line.
    var headers: CacheHeaderLines
    /// The lowercased names of the headers whose values are secrets (``SecretNames``' headers):
    /// never written to disk (only a digest of the owner headers' values is).
    var secretHeaderNames: Set<String>
    /// The lowercased names of the headers whose values identify the caller besides
    /// `Authorization` (``SecretNames/cacheOwnerHeaders``): they key the stored responses, so a
    /// response is only served to a request carrying the same credentials.
    var ownerHeaderNames: Set<String>
    /// Whether `Authorization` keys the stored responses (``SecretNames/cacheKeysAuthorization``).
    var keysAuthorization: Bool
    /// Whether the request carries `Authorization` (or another credential the library added).
    /// Such responses are stored in memory only, unless ``allowsDiskStorageWhenAuthorized``.
    var hasAuthorization: Bool
    /// The provider's opt-in to store responses to authorized requests on disk.
    var allowsDiskStorageWhenAuthorized: Bool
    /// The credentials that identify the caller but go in no header as such (a Digest user
    /// and password libcurl answers with, a SigV4 key): they key the stored responses too.
    var caller: String?

    /// A request whose owner headers are `Authorization` and its secret headers.
    init(method: String, url: String, headers: CacheHeaderLines = [], secretHeaderNames: Set<String> = [],
         hasAuthorization: Bool = false, allowsDiskStorageWhenAuthorized: Bool = false) {
        let secrets = Set(secretHeaderNames.map(SecretNames.folded))
        self.init(method: method, url: url, headers: headers, foldedSecretHeaderNames: secrets, ownerHeaderNames: secrets,
                  keysAuthorization: true, hasAuthorization: hasAuthorization,
                  allowsDiskStorageWhenAuthorized: allowsDiskStorageWhenAuthorized)
    }

    /// The same, with names lowercased already (a request's ``SecretNames`` are).
    init(method: String, url: String, headers: CacheHeaderLines, foldedSecretHeaderNames: Set<String>,
         ownerHeaderNames: Set<String>, keysAuthorization: Bool, hasAuthorization: Bool, allowsDiskStorageWhenAuthorized: Bool) {
        self.method = method
        self.url = url
        self.headers = headers
        secretHeaderNames = foldedSecretHeaderNames
        self.ownerHeaderNames = ownerHeaderNames
        self.keysAuthorization = keysAuthorization
        self.hasAuthorization = hasAuthorization || headers.contains(named: "authorization")
        self.allowsDiskStorageWhenAuthorized = allowsDiskStorageWhenAuthorized
    }

    /// The request's own `Cache-Control` directives (RFC 9111 section 5.2.1).
    var cacheControl: CacheControl {
        CacheControl(lines: headers.values(named: "cache-control"))
    }

    /// Whether the request carries its own preconditions or asks for a range: the cache then
    /// neither answers it nor adds its own (the caller is validating something of its own).
    var isConditionalOrRanged: Bool {
        headers.contains { line in
            guard let first = line.name.utf8.first, first | 0x20 == UInt8(ascii: "i") || first | 0x20 == UInt8(ascii: "r") else {
                return false
            }
            return CacheRequest.conditionalNames.contains { line.name.equalsIgnoringASCIICase($0) }
        }
    }

    private static let conditionalNames = ["if-none-match", "if-modified-since", "if-match", "if-unmodified-since",
                                           "if-range", "range"]

    /// The URL the cache keys by: the text as sent, without a fragment.
    var keyURL: String {
        CacheRequest.keyURL(url)
    }

    static func keyURL(_ url: String) -> String {
        // By its bytes: finding a Character walks grapheme clusters.
        guard let hash = url.utf8.firstIndex(of: UInt8(ascii: "#")) else { return url }
        return String(url[..<hash])
    }
}
