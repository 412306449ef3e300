import Foundation

enum PreparedBody: Sendable {
    case bytes(Data)
    /// Streamed from disk; its size was read when the request was prepared.
    case file(URL, size: Int64)
    /// Built by libcurl, which also sets the `Content-Type` with its boundary.
    case multipart(MultipartFormData)
    /// Produced by a sequence while it is sent, once (see ``UploadStream``).
    case stream(UploadStream)

    /// The body one transfer sends: a body made by a factory afresh, any other as it is.
    var forSending: PreparedBody {
        if case .stream(let upload) = self, upload.isRepeatable { return .stream(upload.fresh()) }
        return self
    }

    var count: Int64? {
        switch self {
        case .bytes(let data): Int64(data.count)
        case .file(_, let size): size
        case .multipart: nil
        case .stream(let upload): upload.length
        }
    }
}
