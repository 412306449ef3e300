import Foundation

/// The core's half of the backend boundary: a hop's ``TransferPlan``. The chain asks the prepared
/// request (below), never the plan.
extension TransferPlan {
    /// The plan of `hop` as it is: signing, when the provider signs, is the chain's (``SigningStep``).
    convenience init(_ hop: PreparedRequest) {
        let resolved = hop.resolved
        self.init(method: hop.method, urlText: hop.urlText, headers: hop.headers, timeout: hop.timeout,
                  statedTimeout: resolved.timeout, bodyCount: hop.body?.count, origin: hop.origin,
                  options: hop.wireOptions, streaming: resolved.streamKind != nil, progress: resolved.progress,
                  events: resolved.events, expectations: resolved.expectations, redirectPolicy: resolved.redirectPolicy,
                  saveDestination: resolved.downloadDestination,
                  webSocket: resolved.webSocket.map { settings in
                      WebSocketDial(options: settings.options, log: resolved.log.map { WebSocketLog($0, request: hop) })
                  },
                  challenge: hop.answeredChallenge, body: hop.sentBody)
    }
}

extension PreparedRequest {
    /// The hop as an equivalent `curl` command line (``CurlCommand``), rendered from its plan.
    func commandLine(redactingSecrets: Bool) -> String {
        CurlCommand.render(TransferPlan(self), redactingSecrets: redactingSecrets)
    }

    /// The body libcurl sends: the request's, or an empty one for `POST`, `PUT` and `PATCH`
    /// without one (so that they carry `Content-Length: 0`).
    var sentBody: PreparedBody? {
        body?.forSending ?? (method == .post || method == .put || method == .patch ? .bytes(Data()) : nil)
    }

    /// The headers libcurl adds to this hop (``TransferPlan/libraryHeaders(for:decodesBody:)``).
    var libraryHeaders: [(name: String, value: String)] {
        TransferPlan.libraryHeaders(for: headers, decodesBody: TransferPlan.decodes(method: method, streaming: resolved.streamKind != nil))
    }

    /// The provider's credentials libcurl answers a challenge with: at its own origin only, and not
    /// when the request carries an Authorization of its own.
    var answeredChallenge: (scheme: Authentication.ChallengeScheme, user: String, password: String)? {
        guard isAtProviderOrigin, let authentication = resolved.authentication, let challenge = authentication.challenge,
              headers.value(for: "Authorization") == nil else { return nil }
        return challenge
    }

    /// The request's transfer settings for this hop, as decided for its origin.
    var wireOptions: TransferOptions {
        let options = resolved.options
        guard options.unixSocketPath != nil || options.cookieJar != nil || options.clientCertificate != nil || options.tls != nil else {
            return options  // as they are: most requests have none of them
        }
        // The provider's Unix socket, client certificate and TLS options are for its own origin only.
        let dropsOriginBound = !isAtProviderOrigin && (options.unixSocketPath != nil || options.clientCertificate != nil || options.tls != nil)
        // A Cookie header set by the user wins: that request neither sends nor stores the store's cookies.
        let dropsCookies = options.cookieJar != nil && headers.value(for: "Cookie") != nil
        return dropsOriginBound || dropsCookies ? options.dropping(originBound: dropsOriginBound, cookies: dropsCookies) : options
    }
}
