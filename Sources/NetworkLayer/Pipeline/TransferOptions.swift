import Foundation

/// The manager's settings that shape a transfer, fixed when the request starts.
///
/// A class of constants: the request, its transfer plan and its libcurl transfer share one
/// instance. A hop that must drop some of them gets a new instance: the provider's Unix socket,
/// client certificate and TLS options serve the provider's own origin only (``TransferPlan`` drops them for another).
final class TransferOptions: Sendable {
    /// A PEM file of CA certificates trusted instead of the system store.
    let customCABundle: URL?
    /// The CA file the origin's certificate is verified with: the provider's, else the manager's.
    var trustedCertificates: URL? { tls?.trustedCertificates ?? customCABundle }
    let pinning: PinningConfiguration?
    /// Why pins cannot be checked in this process, or `nil` (see ``TLSBackendCheck``).
    let tlsBackendProblem: String?
    /// Until the connection is up (``Timeouts/connect``), or `nil` for libcurl's default.
    let connectTimeout: TimeInterval?
    /// How long a response may send nothing (``Timeouts/idle``), or `nil`.
    let idleTimeout: TimeInterval?
    /// The manager's host overrides, or `nil` when it has none.
    let hostOverrides: HostOverrides?

    // Where the connection goes and what it shares, per request (CurlTransfer+Routing applies them).

    /// The provider's Unix socket; `nil` for TCP.
    let unixSocketPath: String?
    /// The manager's cookie store, unless the request carries a `Cookie` header of its own.
    let cookieJar: CookieJar?
    /// The provider's client certificate (mutual TLS).
    let clientCertificate: ClientCertificate?
    /// The provider's TLS options.
    let tls: TLSOptions?
    /// The settings of `Manager/Settings.toml` (HTTP version, keepalive, proxy, how to connect, the
    /// response limits), each from the first of its levels that sets it: request, provider, manager.
    let table: Settings.Table

    init(customCABundle: URL? = nil, pinning: PinningConfiguration? = nil, tlsBackendProblem: String? = nil,
         connectTimeout: TimeInterval? = nil, idleTimeout: TimeInterval? = nil, hostOverrides: HostOverrides? = nil,
         unixSocketPath: String? = nil, cookieJar: CookieJar? = nil, clientCertificate: ClientCertificate? = nil,
         tls: TLSOptions? = nil, table: Settings.Table = Settings.Table()) {
        self.customCABundle = customCABundle
        self.pinning = pinning
        self.tlsBackendProblem = tlsBackendProblem
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
        self.hostOverrides = hostOverrides
        self.unixSocketPath = unixSocketPath
        self.cookieJar = cookieJar
        self.clientCertificate = clientCertificate
        self.tls = tls
        self.table = table
    }

    /// These options without those that serve the provider's origin only (its Unix socket,
    /// client certificate and TLS options) when `originBound`, and without the cookie store when `cookies`.
    func dropping(originBound: Bool, cookies: Bool) -> TransferOptions {
        TransferOptions(customCABundle: customCABundle, pinning: pinning, tlsBackendProblem: tlsBackendProblem,
                        connectTimeout: connectTimeout, idleTimeout: idleTimeout, hostOverrides: hostOverrides,
                        unixSocketPath: originBound ? nil : unixSocketPath, cookieJar: cookies ? nil : cookieJar,
                        clientCertificate: originBound ? nil : clientCertificate, tls: originBound ? nil : tls, table: table)
    }

    /// What the log says when pins are configured for a host this request reaches over a Unix
    /// socket without TLS: pinning checks a TLS handshake, and there is none. `nil` otherwise.
    func unpinnedSocketNote(for request: PreparedRequest) -> String? {
        guard let path = unixSocketPath, request.url.scheme?.lowercased() == "http", let host = request.url.host,
              let pinning, !pinning.pins(forHost: host).isEmpty else { return nil }
        return "pinning does not apply: \(host) is pinned, but this request goes over the Unix socket "
            + "\(HeaderFields.printable(path)) without TLS, so there is no certificate to check"
    }
}
