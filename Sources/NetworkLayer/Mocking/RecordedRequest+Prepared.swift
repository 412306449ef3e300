import Foundation

extension RecordedRequest {
    /// The record of `request` as it would have been sent: its headers, and its body as bytes
    /// (a multipart form encoded with a boundary of its own, a file read), or a description of a
    /// body that is too large or cannot be read. A streamed body is what the mock read of it
    /// (`streamed`: the bytes kept, `nil` when there were more than 1 MB, and the total).
    init(_ request: PreparedRequest, streamed: (kept: Data?, total: Int64)? = nil) {
        var headers = Dictionary(request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        let body: Data?
        switch request.body {
        case nil:
            body = nil
        case .bytes(let data)?:
            body = data
        case .file(let url, let size)?:
            if size > Self.recordedBodyLimit {
                body = Self.note("file body: \(size) bytes from \(url.path), not recorded: larger than 1 MB")
            } else {
                do {
                    body = try MultipartFormData.read(url)
                } catch {
                    body = Self.note("file body: \(url.path), not recorded: it cannot be read (\(error.localizedDescription))")
                }
            }
        case .stream?:
            if let streamed, let kept = streamed.kept {
                body = kept
            } else {
                body = Self.note("streamed body: \(streamed.map { "\($0.total) bytes" } ?? "not read"), not recorded: larger than 1 MB")
            }
        case .multipart(let form)?:
            let boundary = MultipartFormData.randomBoundary()
            if !headers.keys.contains(where: { $0.equalsIgnoringASCIICase("Content-Type") }) {
                headers["Content-Type"] = "multipart/form-data; boundary=\(boundary)"
            }
            switch form.encoded(boundary: boundary, limit: Self.recordedBodyLimit) {
            case .success(let data):
                body = data
            case .failure(.tooLarge):
                let names = form.parts.map { "\"\($0.name)\"" }.joined(separator: ", ")
                body = Self.note("multipart body: \(form.parts.count) parts (\(names)), not recorded: larger than 1 MB")
            case .failure(.unreadable(let url)):
                body = Self.note("multipart body: not recorded: the file \(url.path) cannot be read")
            }
        }
        self.init(method: request.method, url: request.url, headers: headers, body: body, redactor: request.redactor)
        operationID = request.resolved.operationID
    }

    /// A description standing in for a body, as UTF-8 bytes: `<what>`.
    private static func note(_ what: String) -> Data {
        Data("<\(what)>".utf8)
    }
}
