import Foundation

extension ResolvedRequest {
    /// The URL the request's first hop goes to, as the cache keys it, built the way
    /// ``prepare(providerHeaders:credentials:)`` builds it but without running anything
    /// asynchronous: only an API key in the query changes a URL among the credentials, and it is
    /// fixed. `nil` when the URL cannot be built (the request would fail before it is sent).
    func cacheURL() -> String? {
        do throws(NetworkError) {
            let (base, isAtProviderOrigin) = try targetURL()
            let (query, _) = try encodedParameters()
            let credentials = isAtProviderOrigin ? authentication?.queryItemCredentials ?? [] : []
            return try finalURL(base, query: query, credentials: credentials, secrets: secretNames).text
        } catch {
            return nil
        }
    }
}

extension Authentication {
    /// The query items this authentication adds to a URL: an API key in the query, else none.
    var queryItemCredentials: [(name: String, value: String)] {
        if case .queryItem(let name, let value) = kind { return [(name, value)] }
        return []
    }
}
