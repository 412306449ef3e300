import Foundation

extension PreparedRequest {
    /// The request for the next hop of a redirect, as browsers and URLSession make it.
    ///
    /// - 301 and 302 turn a POST into a GET without body; 303 turns anything but HEAD into a GET
    ///   without body; 307 and 308 keep the method and body.
    /// - Only `http` and `https` targets are followed.
    /// - When the host changes, or HTTPS becomes HTTP, credentials stay behind: `Authorization`,
    ///   `Proxy-Authorization`, `Cookie`, every header whose name looks secret (API keys, tokens)
    ///   or was declared secret, and every header the provider's `adapt(_:)` set.
    /// - The provider's `adapt(_:)` does not run again for a hop.
    /// - The hop gets `remainingTimeout`: what is left of the whole request's timeout.
    func redirected(to location: String, status: Int, remainingTimeout remaining: TimeInterval) throws(NetworkError) -> PreparedRequest {
        guard let target = URL(string: location), let scheme = target.scheme?.lowercased() else {
            throw .transport(.init(request: redactedDescription,
                                   reason: "the server redirected to \"\(redactor.redact(urlString: location))\", which is not a URL"))
        }
        guard scheme == "http" || scheme == "https" else {
            throw .transport(.init(request: redactedDescription,
                                   reason: "the server redirected to \(scheme):, and only http: and https: redirects are followed"))
        }
        guard target.host != nil else {
            throw .transport(.init(request: redactedDescription,
                                   reason: "the server redirected to \"\(redactor.redact(urlString: location))\", which names no host"))
        }
        var method = self.method
        var body = self.body
        if (status == 303 && method != .head) || ((status == 301 || status == 302) && method == .post) {
            method = .get
            body = nil
        }
        var headers = self.headers
        if body == nil { headers.removeAll { $0.name.equalsIgnoringASCIICase("Content-Type") } }
        let leavesOrigin = target.host?.lowercased() != url.host?.lowercased()
            || (url.scheme?.lowercased() == "https" && scheme == "http")
        if leavesOrigin {
            headers.removeAll { redactor.isSecretHeader($0.name) || adaptedHeaderNames.contains($0.name.lowercased()) }
        }
        guard remaining > 0 else {
            throw .timeOut(.init(request: redactedDescription,
                                 reason: "the timeout of \(snapshot.timeout.compactText) s elapsed while following redirects"))
        }
        return PreparedRequest(method: method, url: target, headers: headers, body: body, timeout: remaining,
                               snapshot: snapshot, redactor: redactor, adaptedHeaderNames: adaptedHeaderNames)
    }
}
