import Foundation

extension NetworkManager {
    /// The proxy requests go through. Default ``ProxyConfiguration/environment``. Verification and pins
    /// apply to the origin, never to the proxy; a 407 fails with ``NetworkError/unauthorizedAccess(_:)``.
    public var proxy: ProxyConfiguration {
        get { settings.withLock { $0.proxy } }
        set { settings.withLock { $0.proxy = newValue } }
    }
}
