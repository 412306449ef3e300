import Foundation

/// How a backend's requests prove who they come from. A provider returns one from its
/// ``ServiceProvider/authentication``; a request can opt out with `requiresAuthentication = false`.
///
/// ```swift
/// struct ShopProvider: ServiceProvider {
///     static let tokens = BearerTokenSource(token: { try await Keychain.token() },
///                                           refresh: { try await AuthAPI.refresh() })
///     var host: String { "api.shop.example" }
///     var httpScheme: HTTPScheme { .https }
///     var authentication: Authentication? { .bearer(Self.tokens) }
/// }
/// ```
///
/// Credentials never cross hosts: when a redirect leads to another host (or from HTTPS to HTTP),
/// the `Authorization`, `Cookie` and API-key headers are not sent there.
public struct Authentication: Sendable {
    enum Kind: Sendable {
        case bearer(BearerTokenSource)
        case fixedBearer(String)
        case basic(username: String, password: String)
        case header(name: String, value: String)
        case queryItem(name: String, value: String)
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

    /// An API key in a header, `X-API-Key` unless named otherwise.
    public static func apiKey(_ key: String, header: String = "X-API-Key") -> Authentication {
        Authentication(kind: .header(name: header, value: key))
    }

    /// An API key as a query item, e.g. `?api_key=…` (redacted in logs like every secret-looking name).
    public static func apiKey(_ key: String, queryItem: String) -> Authentication {
        Authentication(kind: .queryItem(name: queryItem, value: key))
    }

    /// The source that can refresh, if any.
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
        }
    }

    /// What one attempt sends to prove itself.
    struct Credentials: Sendable {
        var headers: [(name: String, value: String)] = []
        var queryItems: [(name: String, value: String)] = []
        /// The bearer token used, to tell a refresh which token failed.
        var token: String?
    }
}

/// Bearer tokens for a backend: fetched before each request, refreshed on a 401.
///
/// Share one source (a `static let`) among every request of a backend. When several requests
/// get a 401 at the same time, the source refreshes **once** and each of them retries once with
/// the new token; a second 401 is ``NetworkError/unauthorizedAccess``. After a refresh the source
/// hands out the refreshed token until ``reset()``.
public actor BearerTokenSource {
    private let fetch: @Sendable () async throws -> String
    private let refresher: (@Sendable () async throws -> String)?
    private var refreshed: String?
    private var refreshing: Task<String, any Error>?

    /// - Parameters:
    ///   - token: returns the current token (from storage, or by signing in).
    ///   - refresh: obtains a new token when the server refused the current one; `nil` if this
    ///     backend cannot refresh (a 401 is then final).
    public init(token: @escaping @Sendable () async throws -> String,
                refresh: (@Sendable () async throws -> String)? = nil) {
        fetch = token
        refresher = refresh
    }

    nonisolated var canRefresh: Bool { refresher != nil }

    /// Forgets a refreshed token, so the next request asks `token` again (after signing out, say).
    public func reset() {
        refreshed = nil
    }

    /// The token for a new request; waits for a refresh in flight.
    func currentToken() async throws(NetworkError) -> String {
        do {
            if let refreshing { return try await refreshing.value }
            if let refreshed { return refreshed }
            return try await fetch()
        } catch {
            throw Self.failure("the bearer token could not be obtained", error)
        }
    }

    /// A token to replace `stale`, which the server refused. Single flight: callers that arrive
    /// while a refresh runs share it, and a caller whose stale token was already replaced gets
    /// the replacement without another refresh.
    func token(replacing stale: String) async throws(NetworkError) -> String {
        if let refreshing {
            do { return try await refreshing.value } catch { throw Self.failure("the token refresh failed", error) }
        }
        if let refreshed, refreshed != stale { return refreshed }
        guard let refresher else { throw Self.failure("the token cannot be refreshed", nil) }
        let task = Task { try await refresher() }
        refreshing = task
        let result = await task.result
        if refreshing == task { refreshing = nil }
        switch result {
        case .success(let token):
            refreshed = token
            return token
        case .failure(let error):
            throw Self.failure("the token refresh failed", error)
        }
    }

    private static func failure(_ reason: String, _ error: (any Error)?) -> NetworkError {
        if let error = error as? NetworkError { return error }
        return .unauthorizedAccess(.init(reason: reason + (error.map { ": \($0.localizedDescription)" } ?? ""),
                                         underlyingError: error))
    }
}
