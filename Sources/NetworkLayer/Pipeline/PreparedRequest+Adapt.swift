import Foundation

extension PreparedRequest {
    func outgoing() -> OutgoingRequest { OutgoingRequest(of: self) }

    /// This request with what the interceptors changed (checked by ``OutgoingRequest/problem()``
    /// as each of them returned): the names they declared secret join the redaction rules, and
    /// the names they set are remembered, so that a redirect to another origin leaves them behind.
    func adapted(_ outgoing: OutgoingRequest) -> PreparedRequest {
        guard outgoing.isModified else { return self }
        var secrets = outgoing.secrets
        let (changedURL, changedBody) = outgoing.changes
        let urlText = changedURL?.absoluteString ?? self.urlText
        secrets.addLookalikes(headers: outgoing.headerList,
                              query: changedURL.map { $0.query(percentEncoded: true).map { Substring($0) } } ?? URLText.query(of: urlText))
        let adapted = PreparedRequest(method: outgoing.method, urlText: urlText, headers: outgoing.headerList,
                                      body: changedBody ?? body, timeout: min(outgoing.attemptSeconds, timeout), resolved: resolved,
                                      secrets: secrets, adaptedHeaderNames: adaptedHeaderNames.union(outgoing.setNames),
                                      redirectedFrom: redirectedFrom, isAtProviderOrigin: outgoing.isAtProviderOrigin)
        if let changedURL { adapted.shareParsedURL(changedURL) } else { adapted.shareParsedURL(of: self) }
        return adapted
    }

    /// The same request asking for the rest of a body from `offset` (`Range: bytes=<offset>-`),
    /// only if it is still the version `validator` names (`If-Range`): a resumed download.
    func resuming(from offset: Int64, ifRange validator: String) -> PreparedRequest {
        var headers = self.headers
        headers.removeAll { $0.name.equalsIgnoringASCIICase("Range") || $0.name.equalsIgnoringASCIICase("If-Range") }
        headers += [("Range", "bytes=\(offset)-"), ("If-Range", validator)]
        let resumed = PreparedRequest(method: method, urlText: urlText, headers: headers, body: body, timeout: timeout,
                                      resolved: resolved, secrets: secrets, adaptedHeaderNames: adaptedHeaderNames,
                                      redirectedFrom: redirectedFrom, isAtProviderOrigin: isAtProviderOrigin)
        resumed.shareParsedURL(of: self)
        return resumed
    }

    /// The same request with `remaining` seconds left: what is left of the whole request's timeout.
    func limited(to remaining: TimeInterval) -> PreparedRequest {
        guard remaining < timeout else { return self }
        let limited = PreparedRequest(method: method, urlText: urlText, headers: headers, body: body, timeout: remaining,
                                      resolved: resolved, secrets: secrets, adaptedHeaderNames: adaptedHeaderNames,
                                      redirectedFrom: redirectedFrom, isAtProviderOrigin: isAtProviderOrigin)
        limited.shareParsedURL(of: self)
        return limited
    }
}
