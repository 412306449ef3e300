import Foundation

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
/// The body streams to a temporary file beside the destination, moved into place only when the
/// transfer completes with an acceptable status: a failed or cancelled download leaves the
/// destination as it was.
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
