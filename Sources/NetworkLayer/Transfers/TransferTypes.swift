import Foundation

/// Where and how long a transfer spent its time, as libcurl measured it. URLSession on Linux
/// reports none of this.
///
/// Every duration counts from the start of the transfer (libcurl's convention), so they grow in
/// this order: `nameLookup ≤ connect ≤ tlsHandshake ≤ firstByte ≤ total`. Values of a step that
/// did not happen (a reused connection needs no lookup) equal the step before.
public struct TransferMetrics: Sendable, Equatable {
    /// When the host name was resolved.
    public let nameLookup: Duration
    /// When the TCP connection was established.
    public let connect: Duration
    /// When the TLS handshake ended (equal to `connect` for plain HTTP).
    public let tlsHandshake: Duration
    /// When the first response byte arrived.
    public let firstByte: Duration
    /// When the transfer ended.
    public let total: Duration
    /// `HTTP/1.0`, `HTTP/1.1`, `HTTP/2` or `HTTP/3`.
    public let httpVersion: String
    /// The server's IP address.
    public let remoteAddress: String?
    /// Bytes of request body sent and response body received (after decompression).
    public let bytesSent: Int64
    public let bytesReceived: Int64
}

/// How far an upload or a download has come.
public struct TransferProgress: Sendable, Equatable {
    /// Bytes sent so far, and the total to send (`nil` while unknown).
    public let bytesSent: Int64
    public let totalBytesToSend: Int64?
    /// Bytes received so far, and the total expected (`nil` while unknown, e.g. without `Content-Length`).
    public let bytesReceived: Int64
    public let totalBytesExpected: Int64?

    /// The fraction done, 0...1, of the download if there is one, else of the upload; `nil` while unknown.
    public var fractionCompleted: Double? {
        if let total = totalBytesExpected, total > 0 { return Double(bytesReceived) / Double(total) }
        if let total = totalBytesToSend, total > 0 { return Double(bytesSent) / Double(total) }
        return nil
    }
}

/// The response type of a download: the file the body was written to.
///
/// ```swift
/// final class BackupRequest: BaseRequest<DownloadedFile> {
///     init(to destination: URL) {
///         super.init(serviceProvider: BackupProvider(), endpoint: "/backup.tar")
///         downloadDestination = destination
///     }
/// }
/// let file = try await Net.perform(BackupRequest(to: URL(fileURLWithPath: "backup.tar")))
/// ```
///
/// The body streams to a temporary file beside the destination and is moved into place only when
/// the transfer completes with an acceptable status; a failed or cancelled download leaves nothing
/// at the destination (an existing file there is replaced only on success).
public struct DownloadedFile: Decodable, Sendable, Equatable {
    /// The destination the file was moved to.
    public let url: URL
    /// Its size in bytes.
    public let size: Int64

    public init(url: URL, size: Int64) {
        self.url = url
        self.size = size
    }

    /// A `DownloadedFile` is produced by a download, never decoded from JSON.
    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription:
            "DownloadedFile is the response type of downloads: set the request's downloadDestination"))
    }
}
