import Foundation

/// Which proxy requests go through: the environment's (the default), none, an HTTP(S) proxy, or
/// a SOCKS5 proxy. Set it for a manager with ``NetworkManager/proxy``, or for one backend with
/// ``ServiceProvider/proxy``.
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
/// libcurl does the proxying. An `https` request goes through a `CONNECT` tunnel, and the TLS
/// inside it is verified against the origin server: its certificate, its host name and its
/// pins, exactly as without a proxy. A proxy that intercepts TLS therefore fails like any other
/// man in the middle, unless its CA is trusted (``NetworkManager/customCABundle``) and no pin is
/// set for the host. A plain `http` request is sent to the proxy as it is (the proxy sees it).
///
/// Proxy credentials are secrets: they never appear in the log, in an error, in copy-as-curl
/// (unless `redactingSecrets: false`) or in the configuration's own description and `dump`, and
/// they are sent only to the proxy. The associated values are raw, as given.
/// Connections through one proxy are never reused for another proxy, nor for direct requests.
public enum ProxyConfiguration: Sendable, Hashable {
    /// The proxy the environment names, as curl reads it: `http_proxy` for `http` requests,
    /// `https_proxy` (or `HTTPS_PROXY`) for `https` ones, `all_proxy` (or `ALL_PROXY`) for either,
    /// and `no_proxy` (or `NO_PROXY`) for hosts that go direct. `http_proxy` is read in lower case
    /// only (an `HTTP_PROXY` can be set by a CGI request's `Proxy:` header). No variable set: no
    /// proxy. The default. Read at each request, so a change applies to the next one.
    case environment
    /// No proxy, whatever the environment says.
    case none
    /// An HTTP proxy (`http://host:port`) or an HTTPS proxy (`https://host:port`, whose own
    /// certificate is verified with the same CA settings as servers'), with optional
    /// credentials (sent as `Proxy-Authorization: Basic`) and the hosts that go direct.
    ///
    /// - Parameters:
    ///   - url: the proxy; a port, when missing, is 1080 for `http` and 443 for `https` (curl's rule).
    ///   - username: the proxy user; credentials written in the URL (`http://u:p@proxy`) are used
    ///     when this is `nil`.
    ///   - password: the proxy password.
    ///   - excluding: hosts that bypass the proxy, as curl's `--noproxy` reads them: a name
    ///     matches itself and its subdomains (`"example.com"` covers `api.example.com`; a leading
    ///     dot, `".internal"`, means the same), an IP address or a CIDR range (`"10.0.0.0/8"`)
    ///     matches addresses, and `"*"` sends everything direct.
    case http(URL, username: String? = nil, password: String? = nil, excluding: [String] = [])
    /// A SOCKS5 proxy: `socks5://host:port` resolves host names locally, `socks5h://host:port`
    /// lets the proxy resolve them (what you want for names only the proxy's network knows).
    /// Credentials may be written in the URL (`socks5h://user:password@host:1080`).
    case socks5(URL)
}
