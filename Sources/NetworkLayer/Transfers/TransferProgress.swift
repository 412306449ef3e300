import Foundation

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
