import Foundation

extension PreparedRequest {
    /// The request for the next hop of a redirect, as browsers and URLSession make it.
    ///
    /// - 301 and 302 turn a POST into a GET without body; 303 turns anything but HEAD into a GET
    ///   without body; 307 and 308 keep the method and body.
    /// - Only `http` and `https` targets are followed. The target is parsed by libcurl's own
    ///   parser and sent as libcurl normalised it, so the origin checked is the one connected to.
    /// - When the target's ``Origin`` is not that of `original` (the request the app made), every
    ///   header of ``secrets``, every header `adapt(_:)` set and a hand-set `Host` stay behind, for
    ///   the rest of the chain, even if a later hop comes back.
    /// - A target of another origin whose URL carries one of `original`'s secret values (an API
    ///   key echoed into `Location`) is refused with ``NetworkError/transport(_:)``.
    /// - The target's user information (`user:password@`) is dropped, whatever its origin (curl,
    ///   without `--location-trusted`, sends no credentials to another host): libcurl would send
    ///   it as `Authorization: Basic`, and credentials are the app's to choose (its
    ///   ``Authentication``), never a server's.
    /// - The provider's `adapt(_:)` does not run again for a hop.
    /// - The hop gets `remainingTimeout`: what is left of the whole request's timeout.
    func redirected(to location: String, status: Int, remainingTimeout remaining: TimeInterval,
                    from original: PreparedRequest) throws(NetworkError) -> PreparedRequest {
        let redactor = original.redactor
        func shown(_ text: String) -> String {
            HeaderFields.printable(Redactor.scrub(redactor.redact(urlString: text), secrets: redactor.secretValues(of: original)))
        }
        guard let parsed = CurlURL(location, relativeTo: url.absoluteString), let scheme = parsed.scheme else {
            throw .transport(.init(request: original.redactedDescription,
                                   reason: "the server redirected to \"\(shown(location))\", which is not a URL"))
        }
        guard scheme == "http" || scheme == "https" else {
            throw .transport(.init(request: original.redactedDescription,
                                   reason: "the server redirected to \(HeaderFields.printable(scheme)):, and only http: and https: redirects are followed"))
        }
        guard let targetOrigin = Origin(parsed) else {
            throw .transport(.init(request: original.redactedDescription,
                                   reason: "the server redirected to \"\(shown(location))\", which names no host"))
        }
        guard parsed.removeUserInformation(), let canonical = parsed.text, let target = URL(string: canonical), target.host != nil else {
            throw .transport(.init(request: original.redactedDescription,
                                   reason: "the server redirected to \"\(shown(location))\", which is not a URL"))
        }
        let leavesOrigin = Origin(original.url) != targetOrigin
        if leavesOrigin, Self.carriesSecretValue(of: original, in: [location, canonical]) {
            throw .transport(.init(request: original.redactedDescription,
                                   reason: "the server redirected to another origin (\(targetOrigin)) with a secret of this request in the URL; "
                                       + "the redirect was not followed"))
        }
        var method = self.method
        var body = self.body
        // A method the library does not know is kept by 301 and 302, as any method but POST is.
        if (status == 303 && method != .head) || ((status == 301 || status == 302) && method == .post) {
            method = .get
            body = nil
        }
        var headers = self.headers
        if body == nil { headers.removeAll { $0.name.equalsIgnoringASCIICase("Content-Type") } }
        if leavesOrigin {
            headers.removeAll { header in
                redactor.isSecretHeader(header.name) || adaptedHeaderNames.contains(SecretNames.folded(header.name))
                    || header.name.equalsIgnoringASCIICase("Host")
            }
        }
        guard remaining > 0 else {
            throw .timeOut(.init(request: original.redactedDescription,
                                 reason: "the timeout of \(resolved.timeout.compactText) s elapsed while following redirects"))
        }
        return PreparedRequest(method: method, url: target, headers: headers, body: body, timeout: remaining,
                               resolved: resolved, secrets: secrets, adaptedHeaderNames: adaptedHeaderNames,
                               redirectedFrom: original, isAtProviderOrigin: isAtProviderOrigin && !leavesOrigin)
    }

    /// Whether one of `urls` carries a secret value of `request`, as it is or percent-encoded
    /// (`+` for a space too), compared byte for byte.
    private static func carriesSecretValue(of request: PreparedRequest, in urls: [String]) -> Bool {
        let secrets = request.redactor.rawSecretValues(of: request).map { Array($0.utf8) }
        guard !secrets.isEmpty else { return false }
        var forms: [[UInt8]] = []
        for url in urls {
            let bytes = Array(url.utf8)
            forms += [bytes, bytes.percentDecodedLeniently(),
                      bytes.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }.percentDecodedLeniently()]
        }
        return secrets.contains { secret in forms.contains { $0.containsBytes(secret) } }
    }
}
