/// Which HTTP version a request speaks.
public enum HTTPVersion: Sendable, Equatable {
    /// HTTP/2 over TLS when the server offers it, HTTP/1.1 otherwise. The default.
    case automatic
    /// Always HTTP/1.1.
    case http1_1
    /// HTTP/2 from the first byte, without asking: for cleartext `http` services that speak only
    /// HTTP/2 (h2c, gRPC-style services inside a cluster). Over `https` it is HTTP/2 by ALPN.
    case http2PriorKnowledge
}
