import Foundation

/// The request about to be sent, as a provider's ``ServiceProvider/adapt(_:)`` sees it: final
/// method, URL (query included), headers (the provider's, the credentials, the request's own)
/// and body. `adapt` may add, replace and remove headers, e.g. to sign the request.
///
/// ```swift
/// func adapt(_ request: inout OutgoingRequest) async throws {
///     let payload = request.method.rawValue + request.url.path + (request.body.map { String(decoding: $0, as: UTF8.self) } ?? "")
///     request.setHeader("X-Signature", hmacSHA256(key: secret, payload))   // a secret-looking name: redacted in logs
///     request.setHeader("X-Request-Time", timestamp, secret: false)
/// }
/// ```
///
/// A header set here is checked like any other (no CR, LF or other control character) before
/// the request is sent; a bad one fails the request with ``NetworkError/invalidRequest(_:)``.
///
/// Its members are raw, credentials included; its ``description`` (and `dump`) is redacted
/// like the log.
public struct OutgoingRequest: Sendable {
    /// The HTTP method.
    public let method: HTTPMethod
    /// The final URL, with the base path, the endpoint and the query (params and credentials).
    /// Raw: an API key in the query is in it; ``description`` shows it redacted.
    public var url: URL { request.url }
    /// The request this is the outgoing form of: its URL is parsed only if `url` is read.
    private let request: PreparedRequest
    /// The exact bytes that will be sent as the body (raw: ``description`` shows only their size);
    /// `nil` when there is no body or it is streamed (a file, a multipart form with file parts, a ``RequestBody/stream(_:length:contentType:)``
    /// sequence, whose bytes do not exist yet): see ``bodyLength``.
    public let body: Data?
    /// The body's size in bytes: `body.count`, a streamed file's size, a streamed sequence's
    /// declared `length`, `0` without a body, or `nil` when it is not known before sending (a
    /// multipart form, which libcurl assembles; a sequence without a declared length).
    public let bodyLength: Int?

    /// The headers in the order they will be sent; names unique ignoring case.
    private(set) var headerList: [(name: String, value: String)]
    /// Lowercased names of the headers `adapt` set or replaced (kept from a redirect to another origin).
    private(set) var setNames: Set<String> = []
    /// Lowercased names `adapt` declared secret.
    private(set) var secretNames: Set<String> = []
    /// Whether `adapt` changed anything, so an unchanged request is sent as it was prepared.
    private(set) var isModified = false
    /// Decides which names are secret when `setHeader(_:_:)` is not told.
    let redactor: Redactor

    init(of request: PreparedRequest, headers: [(name: String, value: String)], body: Data?, bodyLength: Int?,
         redactor: Redactor) {
        self.request = request
        method = request.method
        headerList = headers
        self.body = body
        self.bodyLength = bodyLength
        self.redactor = redactor
    }

    /// The headers by name, as they will be sent. Change them with ``setHeader(_:_:)`` and
    /// ``removeHeader(_:)``. Raw: the credentials are in them; ``description`` shows them redacted.
    public var headers: [String: String] {
        Dictionary(headerList.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// The value of a header, looked up ignoring case; `nil` when absent. Raw, like ``headers``.
    public func value(forHeader name: String) -> String? {
        headerList.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// Sets a header, replacing one of the same name (ignoring case). It is a secret (redacted in
    /// the log, errors and copy-as-curl, never sent to another origin) when the redaction rules
    /// already treat its name as one (`Authorization`, names with `token`, `secret`, `signature`,
    /// `auth`, …, and ``NetworkManager/redactedHeaderNames``); say so with
    /// ``setHeader(_:_:secret:)`` otherwise.
    public mutating func setHeader(_ name: String, _ value: String) {
        setHeader(name, value, secret: redactor.isSecretHeader(name))
    }

    /// Sets a header, replacing one of the same name (ignoring case), declaring whether its value
    /// is a secret. `secret: false` cannot make a name the redaction rules treat as secret public.
    public mutating func setHeader(_ name: String, _ value: String, secret: Bool) {
        headerList.removeAll { $0.name.equalsIgnoringASCIICase(name) }
        headerList.append((name, value))
        setNames.insert(name.lowercased())
        if secret { secretNames.insert(name.lowercased()) }
        isModified = true
    }

    /// Removes the header of this name (ignoring case), if there is one.
    public mutating func removeHeader(_ name: String) {
        headerList.removeAll { $0.name.equalsIgnoringASCIICase(name) }
        isModified = true
    }
}

extension OutgoingRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `METHOD URL`, the headers and the body's size, secrets redacted (the request's secret
    /// names and those `setHeader(_:_:secret:)` declared):
    /// `POST https://api.example.com/orders [Authorization: <redacted>, X-Signature: <redacted>] 27 bytes`.
    public var description: String {
        var names = request.redactor.names
        for name in secretNames { names.insert(header: name) }
        let redactor = Redactor(names: names)
        let headerText = headerList.map { "\($0.name): \(redactor.redact(header: $0.name, value: $0.value))" }.joined(separator: ", ")
        let size = body.map { "\($0.count) bytes" } ?? bodyLength.map { "\($0) bytes, streamed" } ?? (request.body == nil ? "no body" : "streamed body")
        let text = "\(method.rawValue) \(redactor.redact(urlString: request.urlText)) [\(headerText)] \(size)"
        // The request's secret values, wherever else they are (a header that quotes a token).
        return HeaderFields.printable(Redactor.scrub(text, secrets: request.redactor.secretValues(of: request)))
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What `dump` shows: the redacted description, never the headers or body as they will be sent.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .struct)
    }
}
