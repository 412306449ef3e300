import Foundation

extension NetworkManager {
    /// The proxy this manager's requests go through, unless their provider names its own
    /// (``ServiceProvider/proxy``). Default ``ProxyConfiguration/environment``: `http_proxy`,
    /// `https_proxy`, `all_proxy` and `no_proxy`, read as curl reads them, at each request.
    ///
    /// ```swift
    /// Net.proxy = .none                                  // ignore the environment
    /// Net.proxy = .http(URL(string: "http://proxy.corp:3128")!, username: "u", password: "p",
    ///                   excluding: ["localhost", ".internal"])
    /// Net.proxy = .socks5(URL(string: "socks5h://127.0.0.1:1080")!)
    /// ```
    ///
    /// An `https` request goes through a `CONNECT` tunnel, and certificate verification and
    /// pins apply to the origin server, never to the proxy: a proxy that intercepts TLS is
    /// refused like any man in the middle (it succeeds only when its CA is trusted through
    /// ``customCABundle`` and the host has no pins). An HTTPS proxy's own certificate is
    /// verified with the same CA settings. A proxy that refuses the connection fails with
    /// ``NetworkError/reachability(_:)``, one that demands credentials (407) with
    /// ``NetworkError/unauthorizedAccess(_:)``, both naming the proxy. The credentials are
    /// secrets: never logged, never in an error, and in copy-as-curl only with `redactingSecrets: false`.
    /// A request that starts after a change uses the new proxy; connections through different
    /// proxies are never reused for one another. Safe to set from any thread.
    public var proxy: ProxyConfiguration {
        get { settings.withLock { $0.proxy } }
        set { settings.withLock { $0.proxy = newValue } }
    }
}
