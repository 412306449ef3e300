import Foundation

/// How a backend's requests prove who they come from. A provider returns one from its
/// ``ServiceProvider/authentication``; a request can opt out with `requiresAuthentication = false`.
///
/// What an authentication adds is a secret whatever its name: redacted in the log, errors,
/// copy-as-curl and recorded sidecars, and sent only to the origin (scheme, host and port) the
/// request was made for. A redirect to another origin, including another port or HTTPS → HTTP,
/// leaves it behind.
public struct Authentication: Sendable {
    enum Kind: Sendable {
        case bearer(BearerTokenSource)
        case fixedBearer(String)
        case basic(username: String, password: String)
        case header(name: String, value: String)
        case queryItem(name: String, value: String)
        /// Digest, NTLM or Negotiate: libcurl answers the server's challenge (Authentication+Schemes.swift).
        case challenge(ChallengeScheme, user: String, password: String)
        case awsSigV4(AWSSigV4)
    }

    let kind: Kind

    /// `Authorization: Bearer <token>` with a fixed token.
    public static func bearer(_ token: String) -> Authentication { Authentication(kind: .fixedBearer(token)) }

    /// `Authorization: Bearer <token>` from a token source, fetched before each request and
    /// refreshed once on a 401 when the source can refresh (see ``BearerTokenSource``).
    public static func bearer(_ source: BearerTokenSource) -> Authentication { Authentication(kind: .bearer(source)) }

    /// HTTP basic authentication: `Authorization: Basic base64(username:password)`.
    public static func basic(username: String, password: String) -> Authentication {
        Authentication(kind: .basic(username: username, password: password))
    }

    /// An API key in a header, `X-API-Key` unless named otherwise: a secret whatever the name.
    public static func apiKey(_ key: String, header: String = "X-API-Key") -> Authentication {
        Authentication(kind: .header(name: header, value: key))
    }

    /// An API key as a query item, e.g. `?api_key=…`: redacted in every URL the library shows, whatever its name.
    public static func apiKey(_ key: String, queryItem: String) -> Authentication {
        Authentication(kind: .queryItem(name: queryItem, value: key))
    }

    var refreshableSource: BearerTokenSource? {
        if case .bearer(let source) = kind, source.canRefresh { return source }
        return nil
    }

    /// The credentials for one attempt; `token` overrides the source's (after a refresh).
    func credentials(token: String? = nil) async throws(NetworkError) -> Credentials {
        switch kind {
        case .fixedBearer(let token):
            return Credentials(headers: [("Authorization", "Bearer \(token)")], token: token)
        case .bearer(let source):
            let current: String
            if let token {
                current = token
            } else {
                current = try await source.currentToken()
            }
            return Credentials(headers: [("Authorization", "Bearer \(current)")], token: current)
        case .basic(let username, let password):
            let encoded = Data("\(username):\(password)".utf8).base64EncodedString()
            return Credentials(headers: [("Authorization", "Basic \(encoded)")])
        case .header(let name, let value):
            return Credentials(headers: [(name, value)])
        case .queryItem(let name, let value):
            return Credentials(queryItems: [(name, value)])
        case .challenge(let scheme, let user, let password):
            try Self.check(scheme, user: user, password: password)
            return Credentials()
        case .awsSigV4(let signer):
            if let problem = signer.problem { throw .invalidRequest(.init(reason: problem)) }
            return Credentials()
        }
    }

    struct Credentials: Sendable {
        var headers: [(name: String, value: String)] = []
        var queryItems: [(name: String, value: String)] = []
        /// The bearer token used, to tell a refresh which token failed.
        var token: String?
    }
}
