import Foundation

/// An explicit request body. When a request has one, it is sent instead of `params`.
/// The `Content-Type` header is set from the body unless the request's or provider's headers set one.
public struct RequestBody: Sendable {
    enum Content: Sendable {
        case bytes(Result<Data, NetworkError>, contentType: String)
        case file(URL, contentType: String)
        case multipart(MultipartFormData)
        /// Encoded when the request starts, with the request's or the provider's encoder.
        case encodable(any Encodable & Sendable, encoder: JSONEncoder?, form: Bool)
        /// Produced while it is sent; `length` was checked to be zero or more when it is known.
        case stream(Result<UploadStream, NetworkError>, contentType: String)
    }

    let content: Content

    /// JSON from any `Encodable`, encoded with `encoder`, else the request's `jsonEncoder`, else the
    /// provider's (which sorts keys, so the same value is always the same bytes).
    public static func json(_ value: some Encodable & Sendable, encoder: JSONEncoder? = nil) -> RequestBody {
        RequestBody(content: .encodable(value, encoder: encoder, form: false))
    }

    /// JSON from a dictionary or array literal (the values `params` accepts), keys sorted.
    public static func json(object: [String: any Sendable]) -> RequestBody {
        RequestBody(content: .bytes(Result { () throws(NetworkError) in try ParameterValue.object(from: object).jsonData() },
                                    contentType: "application/json"))
    }

    /// JSON from an array literal.
    public static func json(array: [any Sendable]) -> RequestBody {
        RequestBody(content: .bytes(Result { () throws(NetworkError) in try ParameterValue.array(from: array).jsonData() },
                                    contentType: "application/json"))
    }

    /// `application/x-www-form-urlencoded` fields, encoded like a query (see ``BaseRequest/arrayEncoding``).
    public static func form(_ fields: [String: any Sendable]) -> RequestBody {
        RequestBody(content: .bytes(Result { () throws(NetworkError) in
            Data(try ParameterValue.object(from: fields).queryString().utf8)
        }, contentType: "application/x-www-form-urlencoded"))
    }

    /// `application/x-www-form-urlencoded` from an `Encodable`'s top-level fields (nested values
    /// use brackets, `address[city]=Rome`).
    public static func form(encoding value: some Encodable & Sendable, encoder: JSONEncoder? = nil) -> RequestBody {
        RequestBody(content: .encodable(value, encoder: encoder, form: true))
    }

    /// `multipart/form-data` with a unique boundary; file parts stream from disk.
    public static func multipart(_ form: MultipartFormData) -> RequestBody {
        RequestBody(content: .multipart(form))
    }

    /// Raw bytes with a content type.
    public static func data(_ data: Data, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(content: .bytes(.success(data), contentType: contentType))
    }

    /// A file streamed from disk as the body (a 1 GB file is never loaded into memory).
    public static func file(_ url: URL, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(content: .file(url, contentType: contentType))
    }

    /// A body produced while it is sent: the chunks of any `AsyncSequence` of `Data`.
    ///
    /// - With a `length`, it is sent with `Content-Length`, and a sequence that produces more or
    ///   fewer bytes fails the request with ``NetworkError/invalidRequest(_:)``; without one, chunked
    ///   on HTTP/1.1, plain DATA frames on HTTP/2.
    /// - **Backpressure**: the next chunk is asked for only while less than about 1 MB waits to be sent.
    /// - **Ending**: a sequence that throws fails the request with your error as its
    ///   ``NetworkError/underlyingError``; cancelling the task stops the transfer and the iteration.
    /// - **Sent once**: no retry, no 307/308 resend and no token-refresh retry: those fail with a clear
    ///   error instead of sending an empty body. Use ``stream(length:contentType:_:)`` to send again.
    /// - The log, errors and copy-as-curl never show its bytes; a mock reads the whole sequence.
    ///
    /// - Parameters:
    ///   - chunks: the body, in order. Empty chunks are skipped.
    ///   - length: the exact number of bytes `chunks` produces, or `nil`; a negative one fails the request.
    ///   - contentType: the body's `Content-Type` (the request's or provider's header wins).
    public static func stream<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks, length: Int? = nil, contentType: String = "application/octet-stream"
    ) -> RequestBody where Chunks.Element == Data {
        if let length, length < 0 {
            return RequestBody(content: .stream(.failure(.invalidRequest(.init(
                reason: "a streamed body's length must be zero or more bytes, or nil when unknown, not \(length)"))),
                contentType: contentType))
        }
        let upload = UploadStream(length: length.map(Int64.init)) { each in
            for try await chunk in chunks where !chunk.isEmpty {
                guard await each(chunk) else { return }
            }
        }
        return RequestBody(content: .stream(.success(upload), contentType: contentType))
    }

    /// A body produced while it is sent, by a sequence `makeChunks` makes for each sending, so a
    /// retry, a token refresh or a 307/308 redirect can send it again; otherwise as
    /// ``stream(_:length:contentType:)``. `makeChunks` must give the same bytes each time.
    ///
    /// - Parameters:
    ///   - length: the exact number of bytes each sequence produces, or `nil` when not known.
    ///   - contentType: the body's `Content-Type` (the request's or provider's header wins).
    ///   - makeChunks: makes the sequence of the body's chunks, once per sending.
    public static func stream<Chunks: AsyncSequence & Sendable>(
        length: Int?, contentType: String = "application/octet-stream", _ makeChunks: @escaping @Sendable () -> Chunks
    ) -> RequestBody where Chunks.Element == Data {
        if let length, length < 0 {
            return RequestBody(content: .stream(.failure(.invalidRequest(.init(
                reason: "a streamed body's length must be zero or more bytes, or nil when unknown, not \(length)"))),
                contentType: contentType))
        }
        let upload = UploadStream(length: length.map(Int64.init), isRepeatable: true) { each in
            for try await chunk in makeChunks() where !chunk.isEmpty {
                guard await each(chunk) else { return }
            }
        }
        return RequestBody(content: .stream(.success(upload), contentType: contentType))
    }
}
