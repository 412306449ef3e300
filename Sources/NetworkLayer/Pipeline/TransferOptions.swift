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
    let maximumResponseSize: Int?
    let decompressionLimit: DecompressionLimit
    /// Until the connection is up (``Timeouts/connect``), or `nil` for libcurl's default.
    let connectTimeout: TimeInterval?
    /// How long a response may send nothing (``Timeouts/idle``), or `nil`.
    let idleTimeout: TimeInterval?
    let httpVersion: HTTPVersion
    /// The manager's host overrides, or `nil` when it has none.
    let hostOverrides: HostOverrides?

    // Where the connection goes and what it shares, per request (CurlTransfer+Routing applies them).

    /// The provider's Unix socket; `nil` for TCP.
    let unixSocketPath: String?
    let proxy: ProxyConfiguration
    /// The manager's cookie store, unless the request carries a `Cookie` header of its own.
    let cookieJar: CookieJar?
    /// The provider's client certificate (mutual TLS).
    let clientCertificate: ClientCertificate?
    let keepAlive: KeepAlive?
    /// The provider's TLS options.
    let tls: TLSOptions?
    /// IP family, DNS cache, Happy Eyeballs, interface: the provider's, else the manager's.
    let connecting: ConnectOptions

    init(customCABundle: URL? = nil, pinning: PinningConfiguration? = nil, tlsBackendProblem: String? = nil,
         maximumResponseSize: Int? = nil, decompressionLimit: DecompressionLimit = .standard,
         connectTimeout: TimeInterval? = nil, idleTimeout: TimeInterval? = nil, httpVersion: HTTPVersion = .automatic,
         hostOverrides: HostOverrides? = nil, unixSocketPath: String? = nil, proxy: ProxyConfiguration = .environment,
         cookieJar: CookieJar? = nil, clientCertificate: ClientCertificate? = nil, keepAlive: KeepAlive? = nil,
         tls: TLSOptions? = nil, connecting: ConnectOptions = ConnectOptions()) {
        self.customCABundle = customCABundle
        self.pinning = pinning
        self.tlsBackendProblem = tlsBackendProblem
        self.maximumResponseSize = maximumResponseSize
        self.decompressionLimit = decompressionLimit
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
        self.httpVersion = httpVersion
        self.hostOverrides = hostOverrides
        self.unixSocketPath = unixSocketPath
        self.proxy = proxy
        self.cookieJar = cookieJar
        self.clientCertificate = clientCertificate
        self.keepAlive = keepAlive
        self.tls = tls
        self.connecting = connecting
    }

    /// These options without those that serve the provider's origin only (its Unix socket,
    /// client certificate and TLS options) when `originBound`, and without the cookie store when `cookies`.
    func dropping(originBound: Bool, cookies: Bool) -> TransferOptions {
        TransferOptions(customCABundle: customCABundle, pinning: pinning, tlsBackendProblem: tlsBackendProblem,
                        maximumResponseSize: maximumResponseSize, decompressionLimit: decompressionLimit,
                        connectTimeout: connectTimeout, idleTimeout: idleTimeout, httpVersion: httpVersion,
                        hostOverrides: hostOverrides, unixSocketPath: originBound ? nil : unixSocketPath, proxy: proxy,
                        cookieJar: cookies ? nil : cookieJar, clientCertificate: originBound ? nil : clientCertificate,
                        keepAlive: keepAlive, tls: originBound ? nil : tls, connecting: connecting)
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
