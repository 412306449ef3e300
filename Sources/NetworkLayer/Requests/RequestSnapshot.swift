import Foundation

/// The immutable copy of a ``BaseRequest`` taken when it starts: what the user set, nothing derived.
struct RequestSnapshot: Sendable {
    let provider: any ServiceProvider
    let method: HTTPMethod
    let endpoint: String
    /// The converted `params`, or why they cannot be sent (reported once the request runs).
    let parameters: Result<ParameterValue, NetworkError>
    let additionalHeaders: [String: String]
    let timeout: TimeInterval
    let mockedResponseFilename: String?
    let responseTypeName: String

    /// Builds the request to send: URL, merged headers and body, all checked.
    /// - Parameters:
    ///   - providerHeaders: what the provider's `createHTTPHeaders()` returned.
    ///   - redactor: what counts as a secret in logs and error messages about this request.
    func prepare(providerHeaders: [String: String], redactor: Redactor = .default) throws(NetworkError) -> PreparedRequest {
        let parameters = try parameters.get()
        var url = try baseURL()
        var body: Data?
        var headers = try HeaderFields.merged(providerHeaders, overriddenBy: additionalHeaders)

        if method.encodesParametersInQuery {
            let query = parameters.queryString()
            if !query.isEmpty { url += (url.contains("?") ? "&" : "?") + query }
        } else if case .object(let members) = parameters, !members.isEmpty {
            body = parameters.jsonData()
            if headers.value(for: "Content-Type") == nil {
                headers.append(("Content-Type", "application/json"))
            }
        }
        guard let parsed = URL(string: url), parsed.host != nil else {
            throw .invalidRequest(.init(request: "\(method.rawValue) \(redactor.redact(urlString: url))",
                                        reason: "\"\(url)\" is not a valid URL"))
        }
        guard timeout > 0 else {
            throw .invalidRequest(.init(reason: "the timeout must be greater than zero, not \(timeout)"))
        }
        return PreparedRequest(method: method, url: parsed, headers: headers, body: body, timeout: timeout,
                               snapshot: self, redactor: redactor)
    }

    /// `scheme://host[:port]endpoint`, checked part by part so a mistake gets a precise message.
    func baseURL() throws(NetworkError) -> String {
        let host = provider.host
        guard !host.isEmpty else { throw invalid("the provider's host is empty") }
        if host.contains("://") {
            throw invalid("the provider's host \"\(host)\" contains a scheme; give the scheme in httpScheme and only the name in host")
        }
        let isIPv6Literal = host.hasPrefix("[") && host.hasSuffix("]")
        let allowed = isIPv6Literal ? Self.ipv6Characters : Self.hostCharacters
        guard host.unicodeScalars.allSatisfy(allowed.contains) else {
            throw invalid("the provider's host \"\(host)\" is not a valid host name "
                          + "(only letters, digits, '-' and '.', or an IPv6 address in brackets)")
        }
        var url = "\(provider.httpScheme.rawValue)://\(host)"
        if let port = provider.port {
            guard (1...65535).contains(port) else { throw invalid("the provider's port \(port) is outside 1...65535") }
            url += ":\(port)"
        }
        guard !endpoint.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw invalid("the endpoint contains a control character (CR, LF, NUL or another)")
        }
        if !endpoint.isEmpty && !endpoint.hasPrefix("/") { url += "/" }
        // Characters that cannot appear raw in a path (space, quotes, non-ASCII) are percent-encoded;
        // existing escapes, '/', '?' and '&' keep their meaning.
        url += endpoint.addingPercentEncoding(withAllowedCharacters: Self.endpointCharacters) ?? endpoint
        return url
    }

    private func invalid(_ reason: String) -> NetworkError {
        .invalidRequest(.init(request: "\(method.rawValue) \(endpoint)", reason: reason))
    }

    private static let hostCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")
    private static let ipv6Characters = CharacterSet(charactersIn: "0123456789abcdefABCDEF:.[]%")
    private static let endpointCharacters = CharacterSet.urlPathAllowed.union(CharacterSet(charactersIn: "?&=%#"))
}

/// A request ready for a transport: every part final and validated.
struct PreparedRequest: Sendable {
    let method: HTTPMethod
    let url: URL
    /// In the order they will be sent; names unique ignoring case.
    let headers: [(name: String, value: String)]
    let body: Data?
    let timeout: TimeInterval
    let snapshot: RequestSnapshot
    let redactor: Redactor

    /// `METHOD URL` with secrets redacted, for logs and errors.
    var redactedDescription: String { "\(method.rawValue) \(redactor.redact(url: url))" }
}
