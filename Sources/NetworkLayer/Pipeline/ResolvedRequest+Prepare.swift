import Foundation

extension ResolvedRequest {
    /// The request to send: URL, merged headers and body, all checked. A full URL of another
    /// origin gets neither the credentials nor the provider's secret headers; every error names the
    /// request (`METHOD endpoint`). `credentials` go between the provider's headers and the
    /// request's, and their query items after the parameters.
    func prepare(providerHeaders: [String: String], credentials: Authentication.Credentials? = nil) throws(NetworkError) -> PreparedRequest {
        do {
            return try build(providerHeaders: providerHeaders, credentials: credentials)
        } catch {
            throw error.describingRequest(describeUnprepared())
        }
    }

    private func build(providerHeaders: [String: String], credentials: Authentication.Credentials?) throws(NetworkError) -> PreparedRequest {
        if let problem = method.problem { throw .invalidRequest(.init(request: describeUnprepared(), reason: problem)) }
        let (base, isAtProviderOrigin) = try targetURL()
        let credentials = isAtProviderOrigin ? credentials : nil
        var secrets = secretNames
        for header in credentials?.headers ?? [] { secrets.insert(header: header.name) }
        for item in credentials?.queryItems ?? [] { secrets.insert(queryItem: item.name) }

        var (query, body) = try encodedParameters()
        let url = try finalURL(base, query: query, credentials: credentials?.queryItems ?? [], secrets: secrets)
        var headers = try mergedHeaders(isAtProviderOrigin ? providerHeaders : publicHeaders(providerHeaders, secrets: secrets),
                                        credentials: credentials?.headers ?? [], contentType: body?.contentType)
        if let compression = bodyCompression, let encoded = body {
            body = (try compressed(encoded.body, with: compression), encoded.contentType)
            headers.removeAll { $0.name.equalsIgnoringASCIICase("Content-Encoding") }
            headers.append(("Content-Encoding", compression.coding))
        }
        guard timeout > 0 else {
            throw .invalidRequest(.init(reason: "the timeout must be greater than zero, not \(timeout)"))
        }
        if let value = options.connectTimeout, !(value > 0) { throw nonPositiveTimeout("connect", value) }
        if let value = options.idleTimeout, !(value > 0) { throw nonPositiveTimeout("idle", value) }
        if let problem = options.hostOverrides?.problem {
            throw .invalidRequest(.init(request: describeUnprepared(), reason: problem))
        }
        if !options.table.connectsByDefault, let problem = options.table.connectingProblem {
            throw .invalidRequest(.init(request: describeUnprepared(), reason: problem))
        }
        if let problem = options.tls?.problem {
            throw .invalidRequest(.init(request: describeUnprepared(), reason: problem))
        }
        if let limit = options.table.maximumResponseSize, limit < 0 {
            throw .invalidRequest(.init(request: describeUnprepared(),
                                        reason: "the maximum response size must be zero or more bytes, not \(limit)"))
        }
        if let keyPath = expectations.keyPath, let problem = KeyPathDecoding.problem(with: keyPath) {
            throw .invalidRequest(.init(reason: problem))
        }
        secrets.addLookalikes(headers: headers, query: url.query)
        if let parsed = url.parsed {
            return PreparedRequest(method: method, url: parsed, headers: headers, body: body?.body, timeout: timeout,
                                   resolved: self, secrets: secrets, isAtProviderOrigin: isAtProviderOrigin)
        }
        return PreparedRequest(method: method, urlText: url.text, headers: headers, body: body?.body, timeout: timeout,
                               resolved: self, secrets: secrets, isAtProviderOrigin: isAtProviderOrigin)
    }

    /// `body` compressed for ``BaseRequest/bodyCompression``: only a body held in memory can be.
    private func compressed(_ body: PreparedBody, with compression: BodyCompression) throws(NetworkError) -> PreparedBody {
        guard case .bytes(let data) = body else {
            throw .invalidRequest(.init(request: describeUnprepared(), reason: "bodyCompression compresses a body held in memory; "
                                        + "this one is streamed (a file, a multipart form or a sequence): compress it before, or set no bodyCompression"))
        }
        return .bytes(try compression.compress(data))
    }

    private func nonPositiveTimeout(_ part: String, _ value: TimeInterval) -> NetworkError {
        .invalidRequest(.init(request: describeUnprepared(), reason: "the \(part) timeout must be greater than zero, not \(value)"))
    }

    /// `METHOD endpoint`, secrets redacted and control characters escaped (a CR/LF endpoint
    /// must not forge lines in a log): how a request is named before its URL exists.
    func describeUnprepared() -> String {
        "\(HeaderFields.printable(method.rawValue)) \(unpreparedURL())"
    }

    /// The endpoint as written, redacted by the declared secret names and printable: the URL of a
    /// request that has none yet.
    func unpreparedURL() -> String {
        HeaderFields.printable(Redactor(names: secretNames).redact(urlString: endpoint))
    }
}

extension SecretNames {
    /// The safety net: the headers and query items whose names look secret become facts of this
    /// request too.
    mutating func addLookalikes(headers: [(name: String, value: String)], query: Substring?) {
        for header in headers where Redactor.looksSecret(header: header.name) { insert(lookalikeHeader: header.name) }
        guard let query else { return }
        // Split on bytes, and decoded only when escaped: every request pays for this.
        for item in query.utf8.split(separator: UInt8(ascii: "&")) {
            let rawName = Substring(item.prefix { $0 != UInt8(ascii: "=") })
            let name = rawName.utf8.contains(UInt8(ascii: "%")) ? rawName.removingPercentEncoding ?? String(rawName) : String(rawName)
            if Redactor.looksSecret(queryItem: name) { insert(queryItem: name) }
        }
    }
}
