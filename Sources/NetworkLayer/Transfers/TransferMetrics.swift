import Foundation

/// Where and how long a transfer spent its time, as libcurl measured it.
///
/// Every duration counts from the start of the transfer, so `nameLookup ≤ connect ≤ tlsHandshake
/// ≤ firstByte ≤ total`; a step that did not happen (no lookup on a reused connection) equals
/// the step before.
public struct TransferMetrics: Sendable, Equatable {
    /// When the host name was resolved.
    public let nameLookup: Duration
    /// When the TCP connection was established.
    public let connect: Duration
    /// When the TLS handshake ended (equal to `connect` for plain HTTP).
    public let tlsHandshake: Duration
    /// When the first response byte arrived.
    public let firstByte: Duration
    public let total: Duration
    /// `HTTP/1.0`, `HTTP/1.1`, `HTTP/2` or `HTTP/3`.
    public let httpVersion: String
    /// The server's IP address.
    public let remoteAddress: String?
    /// Bytes of request body sent and response body received (after decompression).
    public let bytesSent: Int64
    public let bytesReceived: Int64
    /// How long the request waited in its origin's queue before it was sent (``OriginLimit``);
    /// zero when it did not wait. Not part of `total`, which starts when the transfer does.
    public internal(set) var queueTime: Duration = .zero
    /// The origin's limit when the response arrived (an adaptive limit's value then), or `nil`
    /// without a limit.
    public internal(set) var originLimit: Int?
    /// Whether the connection to the server is TLS (libcurl's application-connect time is 0 on a
    /// plain one): the log shows `tls` only then.
    let usedTLS: Bool
}
