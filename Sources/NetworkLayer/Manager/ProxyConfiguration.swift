import Foundation

/// Which proxy requests go through: the environment's (the default), none, an HTTP(S) proxy, or
/// a SOCKS5 proxy. Set it with ``NetworkManager/proxy``, or per backend with ``ServiceProvider/proxy``.
///
/// ```swift
/// Net.proxy = .http(URL(string: "http://proxy.corp:3128")!, username: "u", password: "p",
///                   excluding: ["localhost", ".internal"])
/// struct InternalAPI: ServiceProvider {
///     var host: String { "api.internal" }
///     var httpScheme: HTTPScheme { .https }
///     var proxy: ProxyConfiguration? { ProxyConfiguration.none }  // never through the proxy
/// }
/// ```
///
/// An `https` request goes through a `CONNECT` tunnel and its TLS is verified against the origin
/// (certificate, host name, pins), so a TLS-intercepting proxy fails unless its CA is trusted
/// (``NetworkManager/customCABundle``) and no pin covers the host. A plain `http` request is sent
/// to the proxy as it is.
///
/// Proxy credentials are secrets: sent only to the proxy, never in the log, an error, copy-as-curl
/// (unless `redactingSecrets: false`), the description or `dump`. A connection through one proxy
/// is never reused for another proxy or for direct requests.
public enum ProxyConfiguration: Sendable, Hashable {
    /// The environment's proxy, as curl reads it: `http_proxy` (lower case only: a CGI request's
    /// `Proxy:` header can set `HTTP_PROXY`), `https_proxy`, `all_proxy`, `no_proxy` (the last
    /// three in either case). Read at each request. The default.
    case environment
    /// No proxy, whatever the environment says.
    case none
    /// An HTTP proxy (`http://host:port`) or an HTTPS proxy (`https://host:port`, verified with
    /// the servers' CA settings), with optional `Proxy-Authorization: Basic` credentials.
    ///
    /// - Parameters:
    ///   - url: the proxy; without a port, 1080 for `http` and 443 for `https` (curl's rule).
    ///   - username: the proxy user; when `nil`, credentials in the URL (`http://u:p@proxy`) are used.
    ///   - password: the proxy password.
    ///   - excluding: hosts that go direct, as curl's `--noproxy` reads them: a name covers its
    ///     subdomains (`"example.com"` or `".example.com"`), an address or CIDR range
    ///     (`"10.0.0.0/8"`) covers addresses, `"*"` covers everything.
    case http(URL, username: String? = nil, password: String? = nil, excluding: [String] = [])
    /// A SOCKS5 proxy: `socks5://host:port` resolves names locally, `socks5h://host:port` lets the
    /// proxy resolve them. Credentials may be in the URL (`socks5h://user:password@host:1080`).
    case socks5(URL)
}
