import Foundation

extension CacheRequest {
    /// What the cache knows of `hop`: its method, its URL as libcurl gets it, and every header
    /// the server will receive: the hop's own, then those libcurl adds as the transfer plan says
    /// (`User-Agent`, `Accept-Encoding`), then the `Cookie` the manager's cookie store sends, if
    /// any. `Vary` selects on these, so a response stored for `Accept-Encoding: gzip` or one
    /// session's cookies is not served to a request that sent something else.
    ///
    /// The headers that identify the caller (``SecretNames/cacheOwnerHeaders``: `Authorization`,
    /// the secret headers but those declared per attempt, those declared identifying, and the
    /// `Cookie`) key the stored responses by digest; secret ones are never written to disk. The hop
    /// carries credentials when it goes to the provider's own origin with the provider's
    /// ``Authentication``, has an `Authorization` header, or presents a client certificate: its
    /// responses then stay in memory unless the provider opts in to disk. A client certificate
    /// keys them too (by its fingerprint): one client's responses never answer another's
    /// requests, or those presenting none. So do a provider's own TLS rules (``TLSOptions``): a
    /// response fetched under one trust never stands in for the check of a request under another.
    init(_ built: PreparedRequest, caching: RequestCaching) {
        // As the wire will get it: signed (the signing step is after the cache), then planned.
        let hop = SigningStep.signed(built)
        let isSigned = hop !== built
        let options = hop.wireOptions
        var headers = hop.headers + hop.libraryHeaders
        var secretNames = hop.secrets.headers
        var ownerNames = hop.secrets.cacheOwnerHeaders
        if let jar = options.cookieJar, let cookie = jar.cookieHeader(for: hop.url) {
            headers.append((name: "Cookie", value: cookie))
            secretNames.insert("cookie")
            ownerNames.insert("cookie")
        }
        self.init(method: hop.method.rawValue, url: hop.urlText, headers: headers, foldedSecretHeaderNames: secretNames,
                  ownerHeaderNames: ownerNames, keysAuthorization: hop.secrets.cacheKeysAuthorization,
                  hasAuthorization: hop.isAtProviderOrigin && hop.resolved.authentication != nil
                    || options.clientCertificate != nil,
                  allowsDiskStorageWhenAuthorized: caching.storesAuthorizedResponsesOnDisk)
        // Credentials libcurl answers a challenge with identify the caller (hashed into the
        // partition, never stored), as a signature's do.
        caller = hop.answeredChallenge != nil || isSigned ? hop.resolved.authentication?.callerIdentity : nil
        if let certificate = options.clientCertificate {
            // A certificate that cannot be read fails the transfer; until then it is a caller of its own.
            let fingerprint = (try? ClientIdentity.load(certificate, request: hop.redactedDescription))?.fingerprint.hex ?? "unreadable"
            caller = (caller.map { $0 + "\u{0}" } ?? "") + "client certificate " + fingerprint
        }
        if let tls = options.tls {
            caller = (caller.map { $0 + "\u{0}" } ?? "") + "tls " + tls.cacheIdentity
        }
        // A SigV4 signature is new with every attempt: its key is the caller.
        if isSigned { keysAuthorization = false }
    }
}

extension PreparedRequest {
    /// The same hop with the cache's validators added (`If-None-Match`, `If-Modified-Since`);
    /// `nil` when one of them could not be sent (a stored value damaged on disk).
    func addingValidators(_ validators: CacheHeaderLines) -> PreparedRequest? {
        for line in validators {
            do throws(NetworkError) {
                try HeaderFields.validate(name: line.name, value: line.value)
            } catch {
                return nil
            }
        }
        let conditional = PreparedRequest(method: method, urlText: urlText, headers: headers + validators, body: body,
                                          timeout: timeout, resolved: resolved, secrets: secrets,
                                          adaptedHeaderNames: adaptedHeaderNames, redirectedFrom: redirectedFrom, isAtProviderOrigin: isAtProviderOrigin)
        conditional.shareParsedURL(of: self)
        return conditional
    }
}

extension CookieJar {
    /// The `Cookie` header libcurl sends from this store to `url` now, or `nil` when no cookie
    /// applies: the cookies whose domain, path, expiry and `Secure` flag allow it, longest path
    /// first (then by name, so that the same cookies always give the same text).
    func cookieHeader(for url: URL, at now: Date = Date()) -> String? {
        guard let lines = try? lines() else { return nil }
        let cookies = lines.compactMap(Cookie.init(netscapeLine:)).filter { $0.applies(to: url, at: now) }
        guard !cookies.isEmpty else { return nil }
        return cookies.sorted { ($0.path.count, $1.name) > ($1.path.count, $0.name) }
            .map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }
}
