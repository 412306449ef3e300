import Foundation

/// The manager's settings that shape a transfer, fixed when the request starts.
struct TransferOptions: Sendable {
    /// A PEM file of CA certificates trusted instead of the system store.
    var customCABundle: URL?
    /// The pins to enforce, or `nil` when pinning is off.
    var pinning: PinningConfiguration?
    /// Why pins cannot be checked in this process, or `nil` (see ``TLSBackendCheck``).
    var tlsBackendProblem: String?
    /// The largest response body accepted, or `nil` for no limit.
    var maximumResponseSize: Int?
    /// How far a compressed body may expand.
    var decompressionLimit = DecompressionLimit.standard
    /// Until the connection is up (``Timeouts/connect``), or `nil` for libcurl's default.
    var connectTimeout: TimeInterval?
    /// How long a response may send nothing (``Timeouts/idle``), or `nil`.
    var idleTimeout: TimeInterval?
    /// The HTTP version to speak.
    var httpVersion = HTTPVersion.automatic
    /// The manager's host overrides, or `nil` when it has none.
    var hostOverrides: HostOverrides?

    // Where the connection goes and what it shares, per request (CurlTransfer+Routing applies them).

    /// The provider's Unix socket; `nil` for TCP. Applies to the request's own origin only: a
    /// redirect to another origin goes over the network (``forHop(to:from:)``).
    var unixSocketPath: String?
    /// The provider's proxy, or else the manager's.
    var proxy: ProxyConfiguration = .environment
    /// The manager's cookie store, unless the request carries a `Cookie` header of its own.
    var cookieJar: CookieJar?
    /// The provider's client certificate (mutual TLS). Applies to the request's own origin only,
    /// as the Unix socket does (``forHop(to:from:)``).
    var clientCertificate: ClientCertificate?

    /// What the log says when pins are configured for a host this request reaches over a Unix
    /// socket without TLS: pinning checks a TLS handshake, and there is none. `nil` otherwise.
    func unpinnedSocketNote(for request: PreparedRequest) -> String? {
        guard let path = unixSocketPath, request.url.scheme?.lowercased() == "http", let host = request.url.host,
              let pinning, !pinning.pins(forHost: host).isEmpty else { return nil }
        return "pinning does not apply: \(host) is pinned, but this request goes over the Unix socket "
            + "\(HeaderFields.printable(path)) without TLS, so there is no certificate to check"
    }

    /// The options for one hop of `original`: a Unix socket and a client certificate serve
    /// `original`'s origin only.
    func forHop(to request: PreparedRequest, from original: PreparedRequest) -> TransferOptions {
        guard unixSocketPath != nil || clientCertificate != nil, Origin(request.url) != Origin(original.url) else { return self }
        var options = self
        options.unixSocketPath = nil
        options.clientCertificate = nil
        return options
    }
}
