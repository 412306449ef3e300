import Foundation

extension NetworkManager {
    /// Which IP addresses connections may use: ``IPFamily/any`` (the default), IPv4 only or IPv6
    /// only. A provider's ``ServiceProvider/ipFamily`` wins for its requests. A host with no
    /// address of the family fails with ``NetworkError/reachability(_:)``. Read when a request starts.
    ///
    /// ```swift
    /// Net.ipFamily = .ipv6Only
    /// ```
    public var ipFamily: IPFamily {
        get { settings.withLock { $0.connecting.ipFamily } }
        set { settings.withLock { $0.connecting.ipFamily = newValue } }
    }

    /// How long a resolved host name is remembered; `nil` (the default) for libcurl's 60 s, zero
    /// to resolve every time. At most one day: a longer or negative value fails each request with
    /// ``NetworkError/invalidRequest(_:)``. A provider's ``ServiceProvider/dnsCacheTimeout`` wins.
    ///
    /// ```swift
    /// Net.dnsCacheTimeout = .seconds(60)
    /// ```
    public var dnsCacheTimeout: Duration? {
        get { settings.withLock { $0.connecting.dnsCacheTimeout } }
        set { settings.withLock { $0.connecting.dnsCacheTimeout = newValue } }
    }

    /// How long a connection to a host's first address (IPv6 usually) gets before its other
    /// family is tried in parallel (Happy Eyeballs, RFC 8305); `nil` (the default) for libcurl's
    /// 200 ms. Between 0 and 60 s, else ``NetworkError/invalidRequest(_:)``. A provider's
    /// ``ServiceProvider/happyEyeballsTimeout`` wins.
    ///
    /// ```swift
    /// Net.happyEyeballsTimeout = .milliseconds(200)
    /// ```
    public var happyEyeballsTimeout: Duration? {
        get { settings.withLock { $0.connecting.happyEyeballsTimeout } }
        set { settings.withLock { $0.connecting.happyEyeballsTimeout = newValue } }
    }

    /// The network interface connections leave from: an interface name (`"eth1"`), a local
    /// address, or a host name (curl's `--interface`); `nil` (the default) lets the system choose.
    /// One that does not exist fails with ``NetworkError/reachability(_:)`` naming it. A
    /// provider's ``ServiceProvider/networkInterface`` wins.
    ///
    /// ```swift
    /// Net.networkInterface = "eth1"
    /// ```
    public var networkInterface: String? {
        get { settings.withLock { $0.connecting.networkInterface } }
        set { settings.withLock { $0.connecting.networkInterface = newValue } }
    }
}
