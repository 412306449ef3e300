import Foundation

/// A request as it would have gone out, recorded in mock mode: what a test checks the app sent.
///
/// Recorded after the provider's headers, the credentials and `adapt(_:)`, for each attempt.
/// The stored values are the real ones; its ``description`` (also what `dump` and a failed
/// `#expect` show) is redacted like the log, the body shown by its size only.
public struct RecordedRequest: Sendable {
    public let method: HTTPMethod
    /// The full URL, query included. Raw: ``description`` shows it redacted.
    public let url: URL
    /// The headers the request carried, by name (look them up with ``value(forHeader:)``).
    /// Headers libcurl adds on the wire are not included. Raw: ``description`` shows them redacted.
    public let headers: [String: String]
    /// The body's bytes as they would have been sent; `nil` without a body. A multipart, file or
    /// streamed body larger than ``recordedBodyLimit``, or a file that cannot be read, holds a UTF-8
    /// description of it instead; a body given as bytes is always recorded whole.
    public let body: Data?
    /// The request's ``BaseRequest/operationID``; `nil` for a request that names none.
    public internal(set) var operationID: String?

    /// The largest multipart, file or streamed body recorded as bytes: 1 MB.
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
    /// `METHOD URL`, the headers and the body's size, secrets redacted.
    public var description: String {
        let origin = RequestOrigin(method: method, url: url, redactor: redactor).description
        let headerText = headers.sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { "\($0.key): \(redactor.redact(header: $0.key, value: $0.value))" }
            .joined(separator: ", ")
        return HeaderFields.printable("\(origin) [\(headerText)] \(body.map { "\($0.count) bytes" } ?? "no body")")
    }

    public var debugDescription: String { description }

    /// What `dump` shows: the redacted description, never the stored secrets.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .struct)
    }
}
