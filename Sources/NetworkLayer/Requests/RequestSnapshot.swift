import Foundation

/// The immutable copy of a ``BaseRequest`` taken when it starts: what the user set, nothing derived.
struct RequestSnapshot: Sendable {
    /// The request's class (a subclass of `BaseRequest`), which mocks can be registered for.
    let requestClass: AnyObject.Type
    let provider: any ServiceProvider
    let method: HTTPMethod
    let endpoint: String
    /// The converted `params`, or why they cannot be sent (reported once the request runs).
    let parameters: Result<ParameterValue, NetworkError>
    let body: RequestBody?
    let parameterEncoding: ParameterEncoding?
    let arrayEncoding: ArrayEncoding
    let jsonEncoder: JSONEncoder?
    let additionalHeaders: [String: String]
    let timeout: TimeInterval
    let mockedResponseFilename: String?
    let authentication: Authentication?
    let retryPolicy: RetryPolicy?
    /// The secret names the provider and the request declared.
    let secretNames: SecretNames
    let downloadDestination: URL?
    /// How the body is read while it arrives, when the response type is a stream (``ByteStream``,
    /// ``EventStream``, ``JSONLines``); `nil` for a complete response.
    let streamKind: StreamKind?
    let maximumResponseSize: Int?
    let decompressionLimit: DecompressionLimit?
    let progress: ProgressReporter?
    /// The request's own check of an acceptable response, before the provider's `parseAndValidate`.
    let validator: (@Sendable (HTTPResponse) throws -> Void)?
    /// How the response will be validated and decoded (`var`: the manager adds its decoder choice).
    var expectations: ResponseExpectations

    /// Builds the request to send: URL, merged headers and body, all checked.
    /// - Parameters:
    ///   - providerHeaders: what the provider's `createHTTPHeaders()` returned.
    ///   - credentials: what the authentication adds: headers between the provider's and the
    ///     request's, query items after the parameters.
    ///   - redactor: the names the manager declares secret (``NetworkManager/redactedHeaderNames``).
    ///     The request's ``PreparedRequest/secrets`` add the provider's and the request's names,
    ///     every name the credentials use, and every name of the request that looks secret.
    func prepare(providerHeaders: [String: String], credentials: Authentication.Credentials? = nil,
                 redactor: Redactor = .default) throws(NetworkError) -> PreparedRequest {
        var secrets = redactor.names.union(secretNames)
        for header in credentials?.headers ?? [] { secrets.insert(header: header.name) }
        for item in credentials?.queryItems ?? [] { secrets.insert(queryItem: item.name) }
        let redactor = Redactor(names: secrets)

        let parameters = try parameters.get()
        var url = try baseURL(redactor: redactor)
        var headers = try HeaderFields.merged(providerHeaders, credentials?.headers ?? [], overriddenBy: additionalHeaders)

        // Where params go: the query, unless they are the body.
        var query = parameters
        var prepared: (body: PreparedBody, contentType: String?)?
        if let body {
            prepared = try body.prepared(encoder: jsonEncoder ?? provider.jsonEncoder, arrays: arrayEncoding)
        } else {
            switch parameterEncoding ?? (method.encodesParametersInQuery ? .query : .json) {
            case .query:
                break
            case .json:
                query = .object([])
                if !parameters.isEmptyObject { prepared = (.bytes(parameters.jsonData()), "application/json") }
            case .form:
                query = .object([])
                if !parameters.isEmptyObject {
                    prepared = (.bytes(Data(parameters.queryString(arrays: arrayEncoding).utf8)), "application/x-www-form-urlencoded")
                }
            }
        }
        var queryText = query.queryString(arrays: arrayEncoding)
        for item in credentials?.queryItems ?? [] {
            queryText += (queryText.isEmpty ? "" : "&") + ParameterValue.percentEncode(item.name) + "=" + ParameterValue.percentEncode(item.value)
        }
        if !queryText.isEmpty {
            // Before a #fragment, if the endpoint has one.
            let fragmentStart = url.firstIndex(of: "#") ?? url.endIndex
            let separator = url[..<fragmentStart].contains("?") ? "&" : "?"
            url.insert(contentsOf: separator + queryText, at: fragmentStart)
        }
        if let contentType = prepared?.contentType, headers.value(for: "Content-Type") == nil {
            try HeaderFields.validate(name: "Content-Type", value: contentType)
            headers.append(("Content-Type", contentType))
        }

        // No `parsed.host != nil` (URL.host builds a string: ~1 k instructions): baseURL put a
        // checked, non-empty host right after "://", followed only by a port, a "/" or nothing,
        // so a URL that parses has that host. The usual URL is text Foundation takes as written
        // (URLText.isPlainHTTP): the request carries the text and parses it only if its `url` is
        // read (URL(string:) costs ~3 k instructions). Any other goes through URL(string:) here,
        // which refuses it or gives the text libcurl gets.
        let urlText: String
        let parsed: URL?
        if URLText.isPlainHTTP(url) {
            (urlText, parsed) = (url, nil)
        } else if let checked = URL(string: url) {
            (urlText, parsed) = (checked.absoluteString, checked)
        } else {
            throw .invalidRequest(.init(request: "\(method.rawValue) \(redactor.redact(urlString: url))",
                                        reason: "\"\(url)\" is not a valid URL"))
        }
        guard timeout > 0 else {
            throw .invalidRequest(.init(reason: "the timeout must be greater than zero, not \(timeout)"))
        }
        if let keyPath = expectations.keyPath, let problem = KeyPathDecoding.problem(with: keyPath) {
            throw .invalidRequest(.init(reason: problem))
        }
        // The safety net: names that look secret become facts of this request too.
        for header in headers where Redactor.looksSecret(header: header.name) { secrets.insert(header: header.name) }
        let parsedQuery = if let parsed { parsed.query(percentEncoded: true).map { Substring($0) } } else { URLText.query(of: urlText) }
        if let query = parsedQuery {
            for item in query.split(separator: "&") {
                let rawName = item.prefix { $0 != "=" }
                let name = rawName.removingPercentEncoding ?? String(rawName)
                if Redactor.looksSecret(queryItem: name) { secrets.insert(queryItem: name) }
            }
        }
        if let parsed {
            return PreparedRequest(method: method, url: parsed, headers: headers, body: prepared?.body, timeout: timeout,
                                   snapshot: self, secrets: secrets)
        }
        return PreparedRequest(method: method, urlText: urlText, headers: headers, body: prepared?.body, timeout: timeout,
                               snapshot: self, secrets: secrets)
    }

    /// `scheme://host[:port][/basePath]endpoint`, checked part by part so a mistake gets a precise message.
    func baseURL(redactor: Redactor = .default) throws(NetworkError) -> String {
        func invalid(_ reason: String) -> NetworkError {
            .invalidRequest(.init(request: describeUnprepared(with: redactor), reason: reason))
        }
        let host = provider.host
        let isIPv6Literal = host.utf8.first == UInt8(ascii: "[") && host.utf8.last == UInt8(ascii: "]")
        let allowed = isIPv6Literal ? Self.ipv6Bytes : Self.hostBytes
        guard !host.isEmpty, host.utf8.allSatisfy({ allowed.contains($0) }) else {
            if host.isEmpty { throw invalid("the provider's host is empty") }
            if host.contains("://") {
                throw invalid("the provider's host \"\(host)\" contains a scheme; give the scheme in httpScheme and only the name in host")
            }
            throw invalid("the provider's host \"\(host)\" is not a valid host name "
                          + "(only letters, digits, '-' and '.', or an IPv6 address in brackets)")
        }
        let basePath = provider.basePath
        var port: Int?
        if let value = provider.portNumber {
            guard (1...65535).contains(value) else { throw invalid("the provider's port \(value) is outside 1...65535") }
            port = value
        }
        var path = Substring(endpoint)
        // The base path as it goes into the URL (escaped, without its outer slashes), and whether a
        // '/' joins it to the endpoint.
        var escapedBase: String?
        var slashBeforePath = false
        if !basePath.isEmpty {
            guard !basePath.contains("?"), !basePath.contains("#") else {
                throw invalid("the provider's basePath \"\(HeaderFields.printable(basePath))\" holds a query or fragment; it may hold only a path")
            }
            guard !basePath.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw invalid("the provider's basePath contains a control character (CR, LF, NUL or another)")
            }
            // Exactly one '/' at each end of the join, however the two are written.
            var base = Substring(basePath)
            while base.first == "/" { base = base.dropFirst() }
            while base.last == "/" { base = base.dropLast() }
            if !base.isEmpty { escapedBase = Self.escapedPath(String(base)) }
            while path.first == "/" { path = path.dropFirst() }
            // "/orders" and "orders" after a slash; "" and "?page=2" right after the base path;
            // "/" (and "/?page=2") keep their slash.
            let first = path.utf8.first
            slashBeforePath = endpoint.utf8.first == UInt8(ascii: "/")
                || !(first == nil || first == UInt8(ascii: "?") || first == UInt8(ascii: "#"))
        } else if let first = path.utf8.first, first != UInt8(ascii: "/") {  // bytes: hasPrefix on a Substring is slow
            slashBeforePath = true
        }
        // The usual endpoint is plain ASCII that needs no escaping: checked byte by byte, no copy.
        if path.utf8.allSatisfy({ Self.endpointBytes.contains($0) }) {
            return Self.joined(scheme: provider.httpScheme.rawValue, host: host, port: port, base: escapedBase,
                               slash: slashBeforePath, path: path.utf8)
        }
        guard !path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw invalid("the endpoint contains a control character (CR, LF, NUL or another)")
        }
        return Self.joined(scheme: provider.httpScheme.rawValue, host: host, port: port, base: escapedBase,
                           slash: slashBeforePath, path: Self.escapedPath(String(path)).utf8)
    }

    /// `scheme://host[:port][/base][/]path` written into one string of the exact size, byte by
    /// byte: `+=` on a `String` cost ~300 instructions per piece (five or six per request).
    private static func joined<Path: Collection<UInt8>>(scheme: String, host: String, port: Int?, base: String?,
                                                         slash: Bool, path: Path) -> String {
        var portDigits = 0
        if let port {
            var rest = port
            repeat { portDigits += 1; rest /= 10 } while rest > 0
        }
        let baseCount = base.map { 1 + $0.utf8.count } ?? 0
        let count = scheme.utf8.count + 3 + host.utf8.count + (port == nil ? 0 : 1 + portDigits) + baseCount
            + (slash ? 1 : 0) + path.count
        return String(unsafeUninitializedCapacity: count) { buffer in
            var index = 0
            func put(_ byte: UInt8) {
                buffer[index] = byte
                index += 1
            }
            func put<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
                let copied = bytes.withContiguousStorageIfAvailable { source -> Int in
                    guard let start = source.baseAddress, let target = buffer.baseAddress else { return 0 }
                    (target + index).update(from: start, count: source.count)
                    return source.count
                }
                if let copied {
                    index += copied
                } else {
                    for byte in bytes { put(byte) }
                }
            }
            put(scheme.utf8)
            put(UInt8(ascii: ":")); put(UInt8(ascii: "/")); put(UInt8(ascii: "/"))
            put(host.utf8)
            if let port {
                put(UInt8(ascii: ":"))
                var rest = port
                var position = index + portDigits
                index = position
                repeat {
                    position -= 1
                    buffer[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                } while rest > 0
            }
            if let base {
                put(UInt8(ascii: "/"))
                put(base.utf8)
            }
            if slash { put(UInt8(ascii: "/")) }
            put(path)
            return index
        }
    }

    /// The text with the characters that cannot appear raw in a path (space, quotes, non-ASCII)
    /// percent-encoded; existing escapes, '/', '?' and '&' keep their meaning.
    private static func escapedPath(_ text: String) -> String {
        if text.utf8.allSatisfy({ endpointBytes.contains($0) }) { return text }
        return text.addingPercentEncoding(withAllowedCharacters: endpointCharacters) ?? text
    }

    /// `METHOD endpoint`, secrets redacted and control characters escaped (a CR/LF endpoint
    /// must not forge lines in a log): how a request is named before its URL exists.
    func describeUnprepared(with redactor: Redactor = .default) -> String {
        "\(method.rawValue) \(unpreparedURL(with: redactor))"
    }

    /// The endpoint as written, redacted (by `redactor`'s names and the ones the provider and
    /// the request declared) and printable: the URL of a request that has none yet.
    func unpreparedURL(with redactor: Redactor = .default) -> String {
        HeaderFields.printable(Redactor(names: redactor.names.union(secretNames)).redact(urlString: endpoint))
    }

    private static let hostBytes = ASCIISet("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")
    private static let ipv6Bytes = ASCIISet("0123456789abcdefABCDEF:.[]%")
    /// RFC 3986 path characters (unreserved, sub-delims, `:`, `@`, `/`) plus `?`, `#` and `%`,
    /// so an endpoint's own query, fragment and escapes keep their meaning.
    private static let endpointAllowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?#%"
    private static let endpointBytes = ASCIISet(endpointAllowed)
    private static let endpointCharacters = CharacterSet(charactersIn: endpointAllowed)
}
