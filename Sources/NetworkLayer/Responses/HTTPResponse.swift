import Foundation

/// A complete HTTP response, live or mocked, as a provider's `parseAndValidate` sees it.
///
/// Its members are raw: ``url``, ``headers`` and ``body`` hold what was sent and received,
/// secrets included. What prints it (`print`, string interpolation, `String(reflecting:)`,
/// `dump`, a failed `#expect`, an error that carries it) shows the request redacted, the
/// headers redacted as the log shows them and the body by its size only.
public struct HTTPResponse: Sendable {
    /// The HTTP status code.
    public let statusCode: Int
    /// The response headers by the name the server used. A header sent more than once has its
    /// values joined with `", "`. Look names up with ``value(forHeader:)``, which ignores case;
    /// ``values(forHeader:)`` keeps each line of a repeated header apart (`Set-Cookie`, `Link`).
    ///
    /// Raw: as received, `Set-Cookie` and anything the server reflected included. The response's
    /// descriptions and `dump` show them redacted.
    public var headers: [String: String] { headerBlock.dictionary }
    /// The headers as received; the dictionary is built on first use.
    let headerBlock: ResponseHeaders
    /// The body, exactly as received (after transparent decompression). Raw: the descriptions
    /// show only its size.
    public let body: Data
    /// The URL that answered, after any redirects. Raw: secret query items (an API key) are in it,
    /// as a next page's request needs them; the descriptions show it redacted.
    public var url: URL { origin.url }
    /// Whether the answer came from a mock file rather than the network.
    public let isMocked: Bool
    /// libcurl's timings and the protocol used; `nil` for mocked responses.
    public internal(set) var metrics: TransferMetrics?
    /// The file a download was written to (its body is then empty).
    public internal(set) var downloadedFile: DownloadedFile?
    /// Where the response came from when the manager has a ``ResponseCache``: from the network
    /// (``CacheStatus/miss``), the cache (``CacheStatus/hit``), the cache after a 304
    /// (``CacheStatus/revalidated``) or the cache although stale (``CacheStatus/stale``);
    /// `nil` when the manager has no cache, and for mocked responses.
    public internal(set) var cacheStatus: CacheStatus?

    /// The body still arriving, for a streaming response type (``ByteStream``, ``EventStream``,
    /// ``JSONLines``); `body` is then empty. Dropping the last response or stream holding it
    /// cancels the transfer.
    var stream: StreamBody?

    /// Where a 3xx response points, resolved against the request URL.
    var redirectLocation: String?

    /// The open socket of a WebSocket handshake's 101, until a ``WebSocket`` takes it.
    var webSocket: WebSocketUpgrade?

    /// The request that got this response, to describe it in errors (built only when needed).
    let origin: RequestOrigin

    /// `METHOD URL` of the request, secrets redacted; used in error descriptions.
    var requestDescription: String { origin.description }
    /// The request's validation and decoding settings, which the public helpers apply.
    let expectations: ResponseExpectations

    /// Creates a response, e.g. to test a provider's `parseAndValidate`.
    public init(statusCode: Int, headers: [String: String] = [:], body: Data = Data(), url: URL,
                isMocked: Bool = false) {
        self.init(statusCode: statusCode, headers: ResponseHeaders(headers), body: body, isMocked: isMocked,
                  origin: RequestOrigin(method: .get, url: url, redactor: .default), expectations: ResponseExpectations())
    }

    /// Creates a response whose headers are given line by line, so that a name may repeat (two
    /// `Set-Cookie` lines), e.g. to test a provider's `parseAndValidate` with them.
    ///
    /// ```swift
    /// let response = HTTPResponse(statusCode: 200, headerFields: [("Set-Cookie", "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT"),
    ///                                                             ("Set-Cookie", "b=2")], url: url)
    /// response.values(forHeader: "set-cookie")   // both lines, in order
    /// ```
    public init(statusCode: Int, headerFields: [(name: String, value: String)], body: Data = Data(), url: URL,
                isMocked: Bool = false) {
        self.init(statusCode: statusCode, headers: ResponseHeaders(fields: headerFields), body: body, isMocked: isMocked,
                  origin: RequestOrigin(method: .get, url: url, redactor: .default), expectations: ResponseExpectations())
    }

    /// A response to `origin`'s request; its ``url`` is the origin's.
    init(statusCode: Int, headers: ResponseHeaders, body: Data, isMocked: Bool,
         origin: RequestOrigin, expectations: ResponseExpectations, metrics: TransferMetrics? = nil,
         redirectLocation: String? = nil) {
        self.statusCode = statusCode
        self.metrics = metrics
        self.redirectLocation = redirectLocation
        headerBlock = headers
        self.body = body
        self.isMocked = isMocked
        self.origin = origin
        self.expectations = expectations
    }

    /// The same response with another body.
    func replacingBody(_ body: Data) -> HTTPResponse {
        var copy = HTTPResponse(statusCode: statusCode, headers: headerBlock, body: body, isMocked: isMocked,
                                origin: origin, expectations: expectations)
        copy.metrics = metrics
        copy.downloadedFile = downloadedFile
        copy.cacheStatus = cacheStatus
        return copy  // without `stream`: an error or a log must not keep a transfer alive
    }

    /// The value of a header, looked up ignoring case; `nil` when absent. A header sent more than
    /// once gives its values joined with `", "`; see ``values(forHeader:)`` to keep them apart.
    /// Raw, like ``headers``.
    public func value(forHeader name: String) -> String? {
        headerBlock.value(for: name)
    }

    /// Every value of a header, looked up ignoring case: one per line the server sent, in order,
    /// never joined. Empty when the header is absent.
    ///
    /// For the headers a comma cannot split: `Set-Cookie` (its `Expires` date holds a comma),
    /// and `Link`, `Vary` or `WWW-Authenticate` lines read one by one.
    ///
    /// ```swift
    /// for cookie in response.values(forHeader: "Set-Cookie") { print(cookie) }
    /// // session=abc; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/
    /// // theme=dark; Path=/
    /// ```
    ///
    /// A mocked response gives each line its mock named: a sidecar header whose value is an array
    /// of strings (record mode writes one for a repeated header), or ``MockResponse``'s `headerFields`.
    public func values(forHeader name: String) -> [String] {
        headerBlock.values(for: name)
    }

    /// Every header line in the order received, names as the server sent them, a repeated name
    /// once per line (a mock's headers sorted by name): to hand the headers on whole, as a
    /// transport for another HTTP library does. Raw, like ``headers``.
    public var headerFields: [(name: String, value: String)] {
        headerBlock.lines
    }

    /// How much of a failing response's body an error keeps in ``NetworkError/Context/response``: 64 KB.
    public static let errorBodyLimit = 64 * 1024

    /// This response as an error keeps it: the body cut to ``errorBodyLimit`` bytes, copied so
    /// that a large body's buffer is not held alive by the error.
    func keptForError() -> HTTPResponse {
        guard body.count > Self.errorBodyLimit || stream != nil else { return self }
        return replacingBody(Data(body.prefix(Self.errorBodyLimit)))
    }
}

extension HTTPResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The status, the request (secrets redacted) and the body's size: never a header or the
    /// body itself, so printing an error that carries a response cannot print a secret.
    public var description: String {
        "HTTPResponse(status \(statusCode), \(requestDescription), \(body.count) bytes\(isMocked ? ", mocked" : ""))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What `dump` shows: the status, the request and the headers redacted (as the log shows
    /// them), the body's size, the metrics; never the raw URL, headers or body.
    public var customMirror: Mirror {
        var children: [(label: String?, value: Any)] = [
            ("statusCode", statusCode), ("request", requestDescription),
            ("headers", origin.redactedHeaderLines(headers)), ("body", "\(body.count) bytes"), ("isMocked", isMocked),
        ]
        if let metrics { children.append(("metrics", metrics)) }
        if let downloadedFile { children.append(("downloadedFile", downloadedFile)) }
        return Mirror(self, children: children, displayStyle: .struct)
    }
}
