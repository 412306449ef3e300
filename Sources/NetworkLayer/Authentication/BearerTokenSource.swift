import Foundation

/// Bearer tokens for a backend: fetched before each request, refreshed on a 401.
///
/// Share one source (a `static let`) among every request of a backend. When several requests
/// get a 401 at the same time, the source refreshes **once** and each of them retries once with
/// the new token; a second 401 is ``NetworkError/unauthorizedAccess``. After a refresh the source
/// hands out the refreshed token until ``reset()``.
///
/// `token` runs in the task of the request that asks for it, so on the libcurl thread when that
/// task prefers ``NetworkManager/engineExecutor`` (keep it short there). `refresh` runs in a task
/// of its own on Swift's global pool, whatever executor the request prefers: it serves every
/// waiting request and may take as long as a sign-in without holding up any transfer.
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

    /// Forgets a refreshed token, so the next request asks `token` again.
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
        // On the global pool, never the requesting task's preferred executor (see the type).
        let task = Task(executorPreference: globalConcurrentExecutor) { try await refresher() }
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
