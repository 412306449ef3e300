import Foundation

/// A complete HTTP response, live or mocked, as a provider's `parseAndValidate` sees it. Its
/// members (``url``, ``headers``, ``body``) are raw, secrets included; what prints it (`print`,
/// `dump`, an error that carries it) shows the request and headers redacted and the body by size.
public struct HTTPResponse: Sendable {
    public let statusCode: Int
    /// The response headers by the name the server used, a repeated one's values joined with `", "`.
    /// Look names up with ``value(forHeader:)`` (any case) or ``values(forHeader:)`` (each line apart).
    ///
    /// A header folded over several lines (obsolete line folding, RFC 9112 section 5.2) reads as one
    /// line, each fold one space; a line starting with white space is never a header of its own. A
    /// response whose fold continues no header, or continues one libcurl acts on by its first line
    /// alone (`Content-Length`, `Transfer-Encoding`, `Content-Encoding`, `Location`, `Set-Cookie`,
    /// `WWW-Authenticate`, `Proxy-Authenticate`), fails with ``NetworkError/transport(_:)``.
    public var headers: [String: String] { headerBlock.dictionary }
    /// The headers as received; the dictionary is built on first use.
    var headerBlock: ResponseHeaders { storage.headerBlock }
    /// The body, exactly as received (after transparent decompression).
    public var body: Data { storage.body }
    /// The URL that answered, after any redirects, secret query items included (a next page needs them).
    public var url: URL { origin.url }
    /// Whether the answer came from a mock file rather than the network.
    public let isMocked: Bool
    /// libcurl's timings and the protocol used; `nil` for mocked responses.
    public internal(set) var metrics: TransferMetrics? {
        get { storage.metrics }
        set { writableStorage().metrics = newValue }
    }
    /// The file a download was written to (its body is then empty).
    public internal(set) var downloadedFile: DownloadedFile? {
        get { storage.downloadedFile }
        set { writableStorage().downloadedFile = newValue }
    }
    /// Where the response came from (``CacheStatus``); `nil` when the manager has no ``ResponseCache``,
    /// and for mocked responses.
    public internal(set) var cacheStatus: CacheStatus? {
        get { storage.cacheStatus }
        set { writableStorage().cacheStatus = newValue }
    }

    /// The body still arriving, for a streaming response type (``ByteStream``, ``EventStream``,
    /// ``JSONLines``); `body` is then empty. Dropping the last response or stream holding it
    /// cancels the transfer.
    var stream: StreamBody? {
        get { storage.stream }
        set { writableStorage().stream = newValue }
    }

    /// Where a 3xx response points, resolved against the request URL.
    var redirectLocation: String? {
        get { storage.redirectLocation }
        set { writableStorage().redirectLocation = newValue }
    }

    /// The open socket of a WebSocket handshake's 101, until a ``WebSocket`` takes it.
    var webSocket: WebSocketUpgrade? {
        get { storage.webSocket }
        set { writableStorage().webSocket = newValue }
    }

    /// The request that got this response, to describe it in errors (built only when needed).
    private(set) var origin: RequestOrigin {
        get { storage.origin }
        set { writableStorage().origin = newValue }
    }

    /// `METHOD URL` of the request, secrets redacted; used in error descriptions.
    var requestDescription: String { origin.description }
    /// The request's validation and decoding settings, which the public helpers apply.
    var expectations: ResponseExpectations { storage.expectations }

    /// Everything but the status, in one box: a response is copied several times on its way to
    /// the caller (the stream's head, the pipeline's outcome, the parser), and a copy is then one
    /// reference, not a dozen.
    private var storage: Storage

    /// The box, copied first unless this response holds the only reference to it: a box another
    /// response shares is never written.
    private mutating func writableStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// `@unchecked Sendable`: its `var`s are written only through ``HTTPResponse/writableStorage()``,
    /// that is by the one response holding the box, which Swift's exclusivity makes one writer
    /// with no reader on another thread; a box that two responses share is only read.
    private final class Storage: @unchecked Sendable {
        let headerBlock: ResponseHeaders
        let body: Data
        let expectations: ResponseExpectations
        var origin: RequestOrigin
        var metrics: TransferMetrics?
        var downloadedFile: DownloadedFile?
        var cacheStatus: CacheStatus?
        var stream: StreamBody?
        var redirectLocation: String?
        var webSocket: WebSocketUpgrade?

        init(headerBlock: ResponseHeaders, body: Data, expectations: ResponseExpectations, origin: RequestOrigin,
             metrics: TransferMetrics?, redirectLocation: String?) {
            self.headerBlock = headerBlock
            self.body = body
            self.expectations = expectations
            self.origin = origin
            self.metrics = metrics
            self.redirectLocation = redirectLocation
        }

        func copy() -> Storage {
            let copy = Storage(headerBlock: headerBlock, body: body, expectations: expectations, origin: origin,
                               metrics: metrics, redirectLocation: redirectLocation)
            copy.downloadedFile = downloadedFile
            copy.cacheStatus = cacheStatus
            copy.stream = stream
            copy.webSocket = webSocket
            return copy
        }
    }

    /// Creates a response, e.g. to test a provider's `parseAndValidate`.
    public init(statusCode: Int, headers: [String: String] = [:], body: Data = Data(), url: URL,
                isMocked: Bool = false) {
        self.init(statusCode: statusCode, headers: ResponseHeaders(headers), body: body, isMocked: isMocked,
                  origin: RequestOrigin(method: .get, url: url, redactor: .default), expectations: ResponseExpectations())
    }

    /// Creates a response whose headers are given line by line, so that a name may repeat (two
    /// `Set-Cookie` lines).
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
        self.isMocked = isMocked
        storage = Storage(headerBlock: headers, body: body, expectations: expectations, origin: origin,
                          metrics: metrics, redirectLocation: redirectLocation)
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

    /// The value of a header, looked up ignoring case; `nil` when absent. A repeated header's values
    /// are joined with `", "`; see ``values(forHeader:)`` to keep them apart. The value is read as
    /// UTF-8, a byte that is not (a Latin-1 `é`, `0xE9`) becoming U+FFFD: ``bytes(forHeader:)``
    /// gives the bytes as sent.
    public func value(forHeader name: String) -> String? {
        headerBlock.value(for: name)
    }

    /// The value of a header as the bytes the server sent, looked up ignoring case; `nil` when
    /// absent. A repeated header's values are joined with `", "` as in ``value(forHeader:)``, and
    /// a folded one is unfolded (each fold one space); a mock's value is its UTF-8.
    ///
    /// For a value in another charset than UTF-8, which ``value(forHeader:)`` cannot show:
    ///
    /// ```swift
    /// let name = response.bytes(forHeader: "X-Name").flatMap { String(bytes: $0, encoding: .isoLatin1) }
    /// ```
    public func bytes(forHeader name: String) -> [UInt8]? {
        headerBlock.bytes(for: name)
    }

    /// Every value of a header, looked up ignoring case: one per line the server sent, in order,
    /// never joined (a `Set-Cookie`'s `Expires` date holds a comma). Empty when the header is absent.
    /// A mock gives each line from a sidecar header whose value is an array of strings, or from
    /// ``MockResponse``'s `headerFields`.
    public func values(forHeader name: String) -> [String] {
        headerBlock.values(for: name)
    }

    /// Every header line in the order received, names as sent, a repeated name once per line (a
    /// mock's sorted by name): to hand the headers on whole, as a transport for another library does.
    public var headerFields: [(name: String, value: String)] {
        headerBlock.lines
    }

    /// ``headerFields`` one line at a time, name and value as UTF-8 bytes valid only during `body`.
    package func forEachHeaderLine(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Void) {
        headerBlock.forEachLineBytes(body)
    }

    /// How much of a failing response's body an error keeps in ``NetworkError/Context/response``: 64 KB.
    public static let errorBodyLimit = 64 * 1024

    /// This response holding no request, stream or socket (see ``RequestOrigin/detached()``): an
    /// error keeps this form, so that whoever keeps the error keeps no call alive.
    func detachedFromRequest() -> HTTPResponse {
        var copy = self
        copy.origin = origin.detached()
        copy.stream = nil
        copy.webSocket = nil
        return copy
    }

    /// This response cut to ``errorBodyLimit`` bytes, copied so the error holds no large buffer alive.
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
