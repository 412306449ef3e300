/// Which IP addresses a host name's connections may use.
public enum IPFamily: Sendable, Hashable {
    /// IPv4 and IPv6, whichever connects first (Happy Eyeballs): the default.
    case any
    /// IPv4 addresses only (curl's `-4`).
    case ipv4Only
    /// IPv6 addresses only (curl's `-6`).
    case ipv6Only
}
