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
    }

    let content: Content

    /// JSON from any `Encodable`, encoded with `encoder`, else the request's `jsonEncoder`, else
    /// the provider's.
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
}
