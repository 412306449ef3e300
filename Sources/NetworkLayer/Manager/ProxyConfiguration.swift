import Foundation

/// Which proxy requests go through: the environment's (the default), none, HTTP(S) or SOCKS5. An
/// `https` request's TLS is verified against the origin through a `CONNECT` tunnel, so a
/// TLS-intercepting proxy fails unless its CA is trusted and no pin covers the host. Credentials are
/// sent only to the proxy, never shown; a connection is never reused across proxies or direct.
public enum ProxyConfiguration: Sendable, Hashable {
    /// The environment's proxy, as curl reads it (`http_proxy` in lower case only: a CGI request's
    /// `Proxy:` header can set `HTTP_PROXY`). Read at each request. The default.
    case environment
    /// No proxy, whatever the environment says.
    case none
    /// An HTTP or HTTPS proxy, with optional `Proxy-Authorization: Basic` credentials (else those in
    /// the URL). `excluding` lists hosts that go direct, as curl's `--noproxy` reads them.
    case http(URL, username: String? = nil, password: String? = nil, excluding: [String] = [])
    /// A SOCKS5 proxy: `socks5h://` lets the proxy resolve names, `socks5://` resolves them locally.
    case socks5(URL)
}
