import Foundation

/// One endpoint of a backend. Subclass it, naming the response type as the generic parameter.
///
/// The response type is a phantom telling ``NetworkManager/perform(_:isolation:)`` what to decode.
/// A request is a plain mutable object, built on any actor; the manager snapshots it when it starts.
// @exclusivity(unchecked) on every stored property: resolving reads them all (what it saves:
// Benchmarks/RESULTS.md, "Speed tricks, measured").
// A request is not Sendable, so no other thread can race these accesses.
open class BaseRequest<Response: Decodable & Sendable> {
    /// The path, starting with `/`, appended to the provider's `scheme://host[:port]`; it may carry
    /// its own query, to which `params` are appended.
    @exclusivity(unchecked) public var endpoint: String

    /// The parameters: the query string for `GET`, `HEAD` and `OPTIONS`, a JSON body otherwise.
    /// Values: strings, numbers, booleans, `Decimal`, `Date` (ISO 8601), `URL`, `UUID`, `nil`, and
    /// arrays and dictionaries of these (`tag=a&tag=b`, `filter[year]=1992` in a query).
    @exclusivity(unchecked) public var params: [String: any Sendable] = [:]

    /// Headers for this request only; they override the provider's of the same name (ignoring case).
    @exclusivity(unchecked) public var additionalHeaders: [String: String] = [:]

    /// How long the whole request may take, every attempt and redirect included; beyond 10⁹ s
    /// (`.seconds(Int64.max)`, say) means no limit; zero and negative fail with
    /// ``NetworkError/invalidRequest(_:)``. Wins over ``Timeouts/request``; unset, reads 60 s.
    public var requestTimeout: Duration {
        get { explicitTimeout ?? Timeouts.defaultRequest }
        set { explicitTimeout = newValue }
    }

    @available(*, deprecated, renamed: "requestTimeout", message: "a Duration: requestTimeout = .seconds(30)")
    public var timeout: TimeInterval {
        get { requestTimeout.seconds }
        set { explicitTimeout = Duration(clampingSeconds: newValue) }
    }

    @exclusivity(unchecked) var explicitTimeout: Duration?

    @exclusivity(unchecked) public var httpMethod: HTTPMethod = .get

    /// Where the request waits when its origin's limit is reached (``OriginLimit``): higher first,
    /// in order of arrival within one. Default ``RequestPriority/normal``; unused without a limit.
    @exclusivity(unchecked) public var priority: RequestPriority = .normal

    @exclusivity(unchecked) public var serviceProvider: any ServiceProvider

    /// The mock file answering this request in mock mode, without the `.json` extension.
    @exclusivity(unchecked) public var mockedResponseFilename: String?

    /// The name of the operation (an OpenAPI `operationId`), or `nil`. Never sent: it names the
    /// call in the log, ``NetworkLogEntry/operationID``, ``OutgoingRequest/operationID`` and mock mode.
    @exclusivity(unchecked) public var operationID: String?

    // MARK: Bodies and encodings

    /// An explicit ``RequestBody``, sent instead of `params` (which then go to the query string). Default `nil`.
    @exclusivity(unchecked) public var body: RequestBody?

    /// Where `params` go: `nil` (the default) chooses by method; `.query`, `.json` or `.form` choose explicitly.
    @exclusivity(unchecked) public var parameterEncoding: ParameterEncoding?

    /// How arrays in `params` and form bodies are written (default `tag=a&tag=b`).
    @exclusivity(unchecked) public var arrayEncoding: ArrayEncoding = .repeatedKeys

    /// The encoder for ``RequestBody/json(_:encoder:)`` bodies; `nil` uses the provider's.
    @exclusivity(unchecked) public var jsonEncoder: JSONEncoder?

    // MARK: Decoding and validation

    /// The decoder for the response; `nil` uses the provider's ``ServiceProvider/jsonDecoder``.
    @exclusivity(unchecked) public var jsonDecoder: JSONDecoder?

    /// Decode the response at this dot-separated key path (`"data.items"`); `nil` for the top level.
    @exclusivity(unchecked) public var keyPath: String?

    /// The statuses that count as success, as one range; ``acceptableStatuses`` wins when both are set.
    @exclusivity(unchecked) public var acceptableStatusCodes: Range<Int>?

    /// The statuses that count as success: `StatusCodes(200..<300, 304)`. `nil` (the default) uses
    /// ``acceptableStatusCodes``, else ``ServiceProvider/acceptableStatuses``. See ``StatusCodes``.
    @exclusivity(unchecked) public var acceptableStatuses: StatusCodes?

    /// This request's own check of a response with an acceptable status, before `parseAndValidate`
    /// (mocks included, on whatever thread runs the request). What it throws reaches the caller as
    /// the `underlyingError` of ``NetworkError/validation(_:)``; a `NetworkError` as it is.
    @exclusivity(unchecked) public var validator: (@Sendable (HTTPResponse) throws -> Void)?

    /// The ``ServerErrorBody`` type the server sends with failing statuses; `nil` uses ``ServiceProvider/errorBodyType``.
    @exclusivity(unchecked) public var errorBodyType: (any ServerErrorBody.Type)?

    // MARK: Authentication, retries, transfers

    /// Whether the provider's ``ServiceProvider/authentication`` applies. Default `true`.
    @exclusivity(unchecked) public var requiresAuthentication = true

    /// Names of headers whose values are secrets in this request (ignoring case), on top of
    /// ``ServiceProvider/secretHeaderNames``, ``NetworkManager/redactedHeaderNames`` and names that
    /// look secret: redacted wherever shown, and never sent to another origin.
    @exclusivity(unchecked) public var secretHeaderNames: Set<String> = []

    /// Names of query items whose values are secrets in this request, on top of
    /// ``ServiceProvider/secretQueryItemNames`` and ``NetworkManager/redactedQueryItemNames``.
    @exclusivity(unchecked) public var secretQueryItemNames: Set<String> = []

    /// When this request is tried again after a failure; `nil` uses the provider's policy.
    @exclusivity(unchecked) public var retryPolicy: RetryPolicy?

    /// Whether an ``EventStream`` response connects again, with `Last-Event-ID`; `nil` (the
    /// default) ends the loop. A `POST` or `PATCH` reconnects only when the ``ReconnectPolicy`` says so.
    @exclusivity(unchecked) public var reconnectPolicy: ReconnectPolicy?

    /// Download to this file (the response type is then ``DownloadedFile``), moved here only on success.
    @exclusivity(unchecked) public var downloadDestination: URL?

    /// For a ``WebSocket`` request: the subprotocols offered, in order of preference, each an HTTP
    /// token; ``WebSocket/negotiatedProtocol`` says which the server chose.
    @exclusivity(unchecked) public var webSocketProtocols: [String] = []

    /// For a ``WebSocket`` request: its options; `nil` for ``ServiceProvider/webSocketOptions``.
    @exclusivity(unchecked) public var webSocketOptions: WebSocketOptions?

    /// Whether a download that breaks continues where it stopped (`Range`, `If-Range` with the
    /// response's validator), up to 10 times within the timeout; only for a `GET` with a
    /// ``downloadDestination`` and no `Range` of its own. Default `false`.
    @exclusivity(unchecked) public var resumesDownloads = false

    // BEGIN settings table (scripts/settings.py writes this region from Manager/Settings.toml)
    /// The largest response body accepted, in bytes, after decompression; `nil` uses ``NetworkManager/maximumResponseSize``.
    @exclusivity(unchecked) public var maximumResponseSize: Int?

    /// How far a compressed response may expand; `nil` uses ``NetworkManager/decompressionLimit``.
    @exclusivity(unchecked) public var decompressionLimit: DecompressionLimit?

    /// Whether this request's path is sent as given, `.` and `..` segments kept; `nil` uses the provider's,
    /// then ``NetworkManager/sendsPathAsIs``.
    @exclusivity(unchecked) public var sendsPathAsIs: Bool?
    // END settings table

    /// Called with upload and download progress, about ten times a second at most, on the library's
    /// network thread: keep it short. `nil` (the default) does not track progress; see ``progressUpdates()``.
    @exclusivity(unchecked) public var onProgress: (@Sendable (TransferProgress) -> Void)?

    /// Progress as an `AsyncStream` that finishes when the request ends. Sets ``onProgress``.
    public func progressUpdates() -> AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(64))
        onProgress = { continuation.yield($0) }
        progressFinished = { continuation.finish() }
        return stream
    }

    /// Ends the stream made by ``progressUpdates()``.
    @exclusivity(unchecked) var progressFinished: (@Sendable () -> Void)?

    // MARK: The pipeline

    /// This request's own interceptors: innermost. See ``RequestInterceptor``.
    @exclusivity(unchecked) public var interceptors: [any RequestInterceptor] = []

    /// Compresses the body before it is sent (`Content-Encoding`); `nil` (the default) sends it as
    /// it is. Only a body held in memory can be: a streamed one fails with
    /// ``NetworkError/invalidRequest(_:)``. Interceptors see (and sign) the compressed body. See ``BodyCompression``.
    @exclusivity(unchecked) public var bodyCompression: BodyCompression?

    /// This request's own middlewares: innermost, once per call. See ``RequestMiddleware``.
    @exclusivity(unchecked) public var middlewares: [any RequestMiddleware] = []

    /// Which redirects this request follows; `nil` uses the provider's, then ``NetworkManager/redirectPolicy``.
    @exclusivity(unchecked) public var redirectPolicy: RedirectPolicy?

    /// How this request uses the manager's response cache (``NetworkManager/cache``); `nil` uses
    /// ``ServiceProvider/cachePolicy``, else ``CachePolicy/useProtocol`` (RFC 9111). No effect without a cache.
    @exclusivity(unchecked) public var cachePolicy: CachePolicy?

    /// Sends another copy when the answer is slow (``Hedging``): for a `GET` or `HEAD` without a
    /// body, stream or download, ignored on others. Default `nil`: never.
    @exclusivity(unchecked) public var hedging: Hedging?

    /// Turns the response into the value instead of the provider's `parseAndValidate`, for a body
    /// that is not JSON. The status is validated first; what it throws reaches the caller as the
    /// `underlyingError` of ``NetworkError/serialization(_:)`` (a `NetworkError` as it is).
    @exclusivity(unchecked) public var parser: (@Sendable (HTTPResponse) throws -> Response)?

    /// The full URL of a request made with ``init(serviceProvider:url:)``; `nil` for a path under the provider.
    @exclusivity(unchecked) var targetURL: URL?

    /// Creates a request for `endpoint` on the backend `serviceProvider`.
    public init(serviceProvider: any ServiceProvider, endpoint: String) {
        self.serviceProvider = serviceProvider
        self.endpoint = endpoint
    }

    /// Creates a request for a full URL (a `Link: rel="next"` page, a presigned URL). The provider's
    /// credentials, secret headers, interceptors and `adapt(_:)` go with it only at its own origin;
    /// a URL that is not `http` or `https` fails with ``NetworkError/invalidRequest(_:)``.
    public init(serviceProvider: any ServiceProvider, url: URL) {
        self.serviceProvider = serviceProvider
        endpoint = url.absoluteString
        targetURL = url
    }
}
