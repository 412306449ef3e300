import Foundation

/// An explicit request body. When a request has one, it is sent instead of `params`.
///
/// ```swift
/// body = .json(NewUser(name: "Ada"))                        // any Encodable
/// body = .json(object: ["name": "Ada", "tags": ["x"]])      // a JSON literal
/// body = .form(["user": "ada", "remember": true])           // application/x-www-form-urlencoded
/// body = .multipart(MultipartFormData()
///     .text("title", "Holiday")
///     .file("photo", at: URL(fileURLWithPath: "/tmp/beach.jpg"), mimeType: "image/jpeg"))
/// body = .data(pngBytes, contentType: "image/png")
/// body = .file(URL(fileURLWithPath: "/tmp/backup.tar"), contentType: "application/x-tar")
/// body = .stream(chunks, length: nil)                      // any AsyncSequence of Data, sent as it is produced
/// ```
///
/// The `Content-Type` header is set from the body unless the request's or provider's headers set one.
public struct RequestBody: Sendable {
    enum Content: Sendable {
        /// Bytes known up front, with their content type.
        case bytes(Result<Data, NetworkError>, contentType: String)
        /// A file streamed from disk as the whole body.
        case file(URL, contentType: String)
        case multipart(MultipartFormData)
        /// Encoded when the request starts, with the request's or the provider's encoder.
        case encodable(any Encodable & Sendable, encoder: JSONEncoder?, form: Bool)
        /// Produced while it is sent; `length` was checked to be zero or more when it is known.
        case stream(Result<UploadStream, NetworkError>, contentType: String)
    }

    let content: Content

    /// JSON from any `Encodable`, encoded with `encoder`, else the request's `jsonEncoder`, else
    /// the provider's. The provider's default encoder writes keys sorted, so the same value is
    /// always the same bytes; an encoder of your own is used as it is.
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

    /// A body produced while it is sent: the chunks of any `AsyncSequence` of `Data` (an
    /// `AsyncStream<Data>`, an `AsyncThrowingStream<Data, Error>`, your own sequence).
    ///
    /// ```swift
    /// let (chunks, continuation) = AsyncStream.makeStream(of: Data.self)
    /// request.body = .stream(chunks, length: nil)       // chunked on HTTP/1.1
    /// request.body = .stream(export.chunks, length: size, contentType: "text/csv")   // Content-Length: size
    /// ```
    ///
    /// - With a `length`, the body is sent with `Content-Length`; a sequence that produces more or
    ///   fewer bytes fails the request with ``NetworkError/invalidRequest(_:)`` saying which, and the
    ///   server never gets a complete body. Without one it is sent with
    ///   `Transfer-Encoding: chunked` on HTTP/1.1, in plain DATA frames on HTTP/2.
    /// - **Backpressure**: the sequence is asked for its next chunk only while less than about
    ///   1 MB waits to be sent; a slow server pauses it, so memory stays flat for any size.
    /// - **Ending**: a sequence that throws fails the request with your error as
    ///   ``NetworkError/underlyingError`` (``NetworkError/invalidRequest(_:)``; a
    ///   `CancellationError` is ``NetworkError/cancelled(_:)``). Cancelling the request's task
    ///   stops the transfer and the sequence's iteration.
    /// - **Sent once**: a sequence can be iterated only once, so the request is not retried (the
    ///   retry policy does not apply), a 307 or 308 redirect that would send the body again and a
    ///   401 that refreshes the token fail with a clear error instead of sending an empty body.
    ///   A body given as a factory, ``stream(length:contentType:_:)``, can go again.
    /// - In mock mode the mock reads the whole sequence (a producer never waits forever) and the
    ///   recorded request holds its first 1 MB.
    /// - The log, errors and copy-as-curl never show its bytes; ``OutgoingRequest/body`` is `nil`
    ///   and ``OutgoingRequest/bodyLength`` is `length`.
    ///
    /// - Parameters:
    ///   - chunks: the body, in order. Empty chunks are skipped.
    ///   - length: the exact number of bytes `chunks` produces, or `nil` when it is not known.
    ///     A negative length fails the request with ``NetworkError/invalidRequest(_:)``.
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

    /// A body produced while it is sent, by a sequence `makeChunks` makes for each sending: a
    /// retry, a token refresh after a 401, or a 307 or 308 redirect sends it again, where a
    /// sequence given as it is (``stream(_:length:contentType:)``) can go only once.
    ///
    /// ```swift
    /// request.body = .stream(length: size) { export.chunks() }   // a new sequence each time it is asked
    /// ```
    ///
    /// Everything else is as for ``stream(_:length:contentType:)``: backpressure, the declared
    /// length enforced, a sequence that throws failing the request. `makeChunks` must give the
    /// same bytes each time (a request signature or a `Content-Length` sent once would not fit
    /// others).
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
