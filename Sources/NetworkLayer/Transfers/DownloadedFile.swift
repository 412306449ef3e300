import Foundation

/// The response type of a download (the request's `downloadDestination` set): the file the body
/// was written to. The body streams to a temporary file moved into place only on an acceptable
/// status, so a failed or cancelled download leaves the destination as it was.
public struct DownloadedFile: Decodable, Sendable, Equatable {
    /// The destination the file was moved to.
    public let url: URL
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
