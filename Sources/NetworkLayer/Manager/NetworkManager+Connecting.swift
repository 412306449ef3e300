import Foundation

extension NetworkManager {
    /// Which IP addresses connections may use. Default ``IPFamily/any``. None: ``NetworkError/reachability(_:)``.
    public var ipFamily: IPFamily {
        get { settings.withLock { $0.connecting.ipFamily } }
        set { settings.withLock { $0.connecting.ipFamily = newValue } }
    }

    /// How long a resolved name is remembered; `nil` (the default): libcurl's 60 s. Over a day: ``NetworkError/invalidRequest(_:)``.
    public var dnsCacheTimeout: Duration? {
        get { settings.withLock { $0.connecting.dnsCacheTimeout } }
        set { settings.withLock { $0.connecting.dnsCacheTimeout = newValue } }
    }

    /// How long the first address family gets before the other is tried too (Happy Eyeballs, RFC 8305);
    /// `nil` (the default): libcurl's 200 ms. Outside 0...60 s: ``NetworkError/invalidRequest(_:)``.
    public var happyEyeballsTimeout: Duration? {
        get { settings.withLock { $0.connecting.happyEyeballsTimeout } }
        set { settings.withLock { $0.connecting.happyEyeballsTimeout = newValue } }
    }

    /// The network interface connections leave from (curl's `--interface`); `nil` (the default): the system's choice.
    public var networkInterface: String? {
        get { settings.withLock { $0.connecting.networkInterface } }
        set { settings.withLock { $0.connecting.networkInterface = newValue } }
    }
}
