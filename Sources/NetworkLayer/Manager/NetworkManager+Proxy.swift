import Foundation

extension NetworkManager {
    /// The proxy this manager's requests go through, unless their provider names its own
    /// (``ServiceProvider/proxy``). Default ``ProxyConfiguration/environment``.
    ///
    /// ```swift
    /// Net.proxy = .none                                  // ignore the environment
    /// Net.proxy = .http(URL(string: "http://proxy.corp:3128")!, username: "u", password: "p",
    ///                   excluding: ["localhost", ".internal"])
    /// Net.proxy = .socks5(URL(string: "socks5h://127.0.0.1:1080")!)
    /// ```
    ///
    /// Verification and pins apply to the origin, never to the proxy (see ``ProxyConfiguration``).
    /// A proxy that refuses the connection fails with ``NetworkError/reachability(_:)``, one that
    /// demands credentials (407) with ``NetworkError/unauthorizedAccess(_:)``, both naming the
    /// proxy. Safe to set from any thread; a request uses the proxy in force when it starts.
    public var proxy: ProxyConfiguration {
        get { settings.withLock { $0.proxy } }
        set { settings.withLock { $0.proxy = newValue } }
    }
}
