import Foundation

/// A request as it would have gone out, recorded in mock mode: what a test checks the app sent.
///
/// Every request answered in mock mode is recorded, after the provider's headers, the
/// credentials and the provider's `adapt(_:)` (for each attempt, so a retry or the retry after a
/// token refresh is recorded too). Read them in ``MockRegistry/requests``; a closure registered
/// with ``MockRegistry/register(_:answer:)`` receives one to decide its answer.
///
/// The stored values are the real ones, so a test can check that the right token was sent:
///
/// ```swift
/// let sent = try #require(net.mocks.requests.last)
/// #expect(sent.method == .post)
/// #expect(sent.value(forHeader: "Authorization") == "Bearer t")
/// #expect(sent.body == Data(#"{"name":"Ada"}"#.utf8))
/// ```
///
/// Its ``description`` (what `print`, string interpolation, `dump` and a failed `#expect` show)
/// is redacted like the log: secret headers and query items are `<redacted>`, and the body is
/// shown by its size only.
public struct RecordedRequest: Sendable {
    /// The HTTP method.
    public let method: HTTPMethod
    /// The full URL, query included. Raw: an API key in the query is in it; ``description``
    /// shows it redacted.
    public let url: URL
    /// The headers the request carried: the provider's, the credentials, the request's own and
    /// what `adapt(_:)` set, by name (names unique ignoring case; look them up with
    /// ``value(forHeader:)``). A multipart body adds its `Content-Type` with the boundary.
    /// Headers libcurl adds on the wire (`Host`, `Accept-Encoding`, `Content-Length`) are not included.
    /// Raw: the credentials are in them; ``description`` shows them redacted.
    public let headers: [String: String]
    /// The body's bytes, as they would have been sent (raw: ``description`` shows only their
    /// size); `nil` without a body.
    ///
    /// A multipart form is encoded as libcurl would send it (with the boundary in the
    /// `Content-Type` header), and a file body is read from disk. When such a body is larger
    /// than ``recordedBodyLimit`` (1 MB), or a file cannot be read, the body holds a description
    /// of it instead, in UTF-8 (`<file body: … bytes from /path, not recorded: …>`). A body given
    /// as bytes is always recorded whole. A streamed body (``RequestBody/stream(_:length:contentType:)``)
    /// is read whole by the mock and recorded up to the same limit (`<streamed body: … bytes, not
    /// recorded: larger than 1 MB>` beyond it).
    public let body: Data?
    /// The request's ``BaseRequest/operationID``; `nil` for a request that names none.
    public internal(set) var operationID: String?

    /// The largest multipart or file body recorded as bytes: 1 MB.
    public static let recordedBodyLimit = 1 << 20

    /// Decides which values ``description`` hides: the request's own rules.
    let redactor: Redactor

    init(method: HTTPMethod, url: URL, headers: [String: String], body: Data?, redactor: Redactor) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.redactor = redactor
    }

    /// The value of a header, looked up ignoring case; `nil` when absent.
    public func value(forHeader name: String) -> String? {
        headers.first { $0.key.equalsIgnoringASCIICase(name) }?.value
    }
}

extension RecordedRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `METHOD URL`, the headers and the body's size, secrets redacted:
    /// `POST https://api.example.com/login [Authorization: <redacted>, Content-Type: application/json] 27 bytes`.
    public var description: String {
        let origin = RequestOrigin(method: method, url: url, redactor: redactor).description
        let headerText = headers.sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { "\($0.key): \(redactor.redact(header: $0.key, value: $0.value))" }
            .joined(separator: ", ")
        return HeaderFields.printable("\(origin) [\(headerText)] \(body.map { "\($0.count) bytes" } ?? "no body")")
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What `dump` shows: the redacted description, never the stored secrets.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .struct)
    }
}
