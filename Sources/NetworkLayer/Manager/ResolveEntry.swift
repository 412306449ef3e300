/// Addresses given for a host name and port, used instead of resolving the name (curl's
/// `--resolve host:port:address[,address]`).
///
/// The URL, the `Host` header, TLS (SNI and certificate verification), pins and cookies keep the
/// name; only the addresses connections go to are these. A host is a name (letters, digits, `-`,
/// `.`), an address an IPv4 or IPv6 address (IPv6 with or without brackets); anything else fails
/// the request with ``NetworkError/invalidRequest(_:)`` before it is sent.
///
/// ```swift
/// Net.resolve = [ResolveEntry(host: "api.example.com", port: 443, addresses: ["10.0.0.7", "fd00::7"])]
/// ```
public struct ResolveEntry: Sendable, Hashable {
    /// The host name the entry is for.
    public var host: String
    /// The port the entry is for (1...65535): a request to another port resolves the name.
    public var port: Int
    /// The addresses to connect to, tried in this order.
    public var addresses: [String]

    /// An entry giving `addresses` for `host` on `port`.
    public init(host: String, port: Int, addresses: [String]) {
        self.host = host
        self.port = port
        self.addresses = addresses
    }
}
