import Foundation

/// One endpoint of a backend. Subclass it, naming the response type as the generic parameter.
///
/// The response type is a phantom telling ``NetworkManager/perform(_:isolation:)`` what to decode.
/// A request is a plain mutable object, built on any actor; the manager snapshots it when it starts.
// @exclusivity(unchecked) on every stored property: resolving reads them all (what it saves:
// Benchmarks/RESULTS.md, "Speed tricks, measured").
// A request is not Sendable, so no other thread can race these accesses.
open class BaseRequest<Response: Decodable & Sendable> {
    /// Every setting, each public property below reading and writing its field. Stored apart: the
    /// provider, the endpoint and a full URL, the call itself, set by the initializers; and `parser`,
    /// whose type names `Response`: options generic over it would be released through a metadata
    /// lookup in every request's deinit. A collection's property also yields its field (`_modify`), so
    /// that `request.params["page"] = 2` changes it in place instead of copying it whole first.
    @exclusivity(unchecked) var options = RequestOptions()

    /// The path, starting with `/`, appended to the provider's `scheme://host[:port]`; it may carry
    /// its own query, to which `params` are appended.
    @exclusivity(unchecked) public var endpoint: String

    /// The parameters: the query string for `GET`, `HEAD` and `OPTIONS`, a JSON body otherwise.
    /// Values: strings, numbers, booleans, `Decimal`, `Date` (ISO 8601), `URL`, `UUID`, `nil`, and
    /// arrays and dictionaries of these (`tag=a&tag=b`, `filter[year]=1992` in a query).
    public var params: [String: any Sendable] {
        get { options.params }
        set { options.params = newValue }
        _modify { yield &options.params }
    }

    /// Headers for this request only; they override the provider's of the same name (ignoring case).
    public var additionalHeaders: [String: String] {
        get { options.additionalHeaders }
        set { options.additionalHeaders = newValue }
        _modify { yield &options.additionalHeaders }
    }

    /// How long the whole request may take, every attempt and redirect included; beyond 10⁹ s
    /// (`.seconds(Int64.max)`, say) means no limit; zero and negative fail with
    /// ``NetworkError/invalidRequest(_:)``. Wins over ``Timeouts/request``; unset, reads 60 s.
    public var requestTimeout: Duration {
        get { options.explicitTimeout ?? Timeouts.defaultRequest }
        set { options.explicitTimeout = newValue }
    }

    @available(*, deprecated, renamed: "requestTimeout", message: "a Duration: requestTimeout = .seconds(30)")
    public var timeout: TimeInterval {
        get { requestTimeout.seconds }
        set { options.explicitTimeout = Duration(clampingSeconds: newValue) }
    }

    public var httpMethod: HTTPMethod {
        get { options.httpMethod }
        set { options.httpMethod = newValue }
    }

    /// Where the request waits when its origin's limit is reached (``OriginLimit``): higher first,
    /// in order of arrival within one. Default ``RequestPriority/normal``; unused without a limit.
    public var priority: RequestPriority {
        get { options.priority }
        set { options.priority = newValue }
    }

    @exclusivity(unchecked) public var serviceProvider: any ServiceProvider

    /// The mock file answering this request in mock mode, without the `.json` extension.
    public var mockedResponseFilename: String? {
        get { options.mockedResponseFilename }
        set { options.mockedResponseFilename = newValue }
    }

    /// The name of the operation (an OpenAPI `operationId`), or `nil`. Never sent: it names the
    /// call in the log, ``NetworkLogEntry/operationID``, ``OutgoingRequest/operationID`` and mock mode.
    public var operationID: String? {
        get { options.operationID }
        set { options.operationID = newValue }
    }

    // MARK: Bodies and encodings

    /// An explicit ``RequestBody``, sent instead of `params` (which then go to the query string). Default `nil`.
    public var body: RequestBody? {
        get { options.body }
        set { options.body = newValue }
    }

    /// Where `params` go: `nil` (the default) chooses by method; `.query`, `.json` or `.form` choose explicitly.
    public var parameterEncoding: ParameterEncoding? {
        get { options.parameterEncoding }
        set { options.parameterEncoding = newValue }
    }

    /// How arrays in `params` and form bodies are written (default `tag=a&tag=b`).
    public var arrayEncoding: ArrayEncoding {
        get { options.arrayEncoding }
        set { options.arrayEncoding = newValue }
    }

    /// The encoder for ``RequestBody/json(_:encoder:)`` bodies; `nil` uses the provider's.
    public var jsonEncoder: JSONEncoder? {
        get { options.jsonEncoder }
        set { options.jsonEncoder = newValue }
    }

    // MARK: Decoding and validation

    /// The decoder for the response; `nil` uses the provider's ``ServiceProvider/jsonDecoder``.
    public var jsonDecoder: JSONDecoder? {
        get { options.jsonDecoder }
        set { options.jsonDecoder = newValue }
    }

    /// Decode the response at this dot-separated key path (`"data.items"`); `nil` for the top level.
    public var keyPath: String? {
        get { options.keyPath }
        set { options.keyPath = newValue }
    }

    /// The statuses that count as success, as one range; ``acceptableStatuses`` wins when both are set.
    public var acceptableStatusCodes: Range<Int>? {
        get { options.acceptableStatusCodes }
        set { options.acceptableStatusCodes = newValue }
    }

    /// The statuses that count as success: `StatusCodes(200..<300, 304)`. `nil` (the default) uses
    /// ``acceptableStatusCodes``, else ``ServiceProvider/acceptableStatuses``. See ``StatusCodes``.
    public var acceptableStatuses: StatusCodes? {
        get { options.acceptableStatuses }
        set { options.acceptableStatuses = newValue }
    }

    /// This request's own check of a response with an acceptable status, before `parseAndValidate`
    /// (mocks included, on whatever thread runs the request). What it throws reaches the caller as
    /// the `underlyingError` of ``NetworkError/validation(_:)``; a `NetworkError` as it is.
    public var validator: (@Sendable (HTTPResponse) throws -> Void)? {
        get { options.validator }
        set { options.validator = newValue }
    }

    /// The ``ServerErrorBody`` type the server sends with failing statuses; `nil` uses ``ServiceProvider/errorBodyType``.
    public var errorBodyType: (any ServerErrorBody.Type)? {
        get { options.errorBodyType }
        set { options.errorBodyType = newValue }
    }

    // MARK: Authentication, retries, transfers

    /// Whether the provider's ``ServiceProvider/authentication`` applies. Default `true`.
    public var requiresAuthentication: Bool {
        get { options.requiresAuthentication }
        set { options.requiresAuthentication = newValue }
    }

    /// Names of headers whose values are secrets in this request (ignoring case), on top of
    /// ``ServiceProvider/secretHeaderNames``, ``NetworkManager/redactedHeaderNames`` and names that
    /// look secret: redacted wherever shown, and never sent to another origin.
    public var secretHeaderNames: Set<String> {
        get { options.secretHeaderNames }
        set { options.secretHeaderNames = newValue }
        _modify { yield &options.secretHeaderNames }
    }

    /// Names of query items whose values are secrets in this request, on top of
    /// ``ServiceProvider/secretQueryItemNames`` and ``NetworkManager/redactedQueryItemNames``.
    public var secretQueryItemNames: Set<String> {
        get { options.secretQueryItemNames }
        set { options.secretQueryItemNames = newValue }
        _modify { yield &options.secretQueryItemNames }
    }

    /// When this request is tried again after a failure; `nil` uses the provider's policy.
    public var retryPolicy: RetryPolicy? {
        get { options.retryPolicy }
        set { options.retryPolicy = newValue }
    }

    /// Whether an ``EventStream`` response connects again, with `Last-Event-ID`; `nil` (the
    /// default) ends the loop. A `POST` or `PATCH` reconnects only when the ``ReconnectPolicy`` says so.
    public var reconnectPolicy: ReconnectPolicy? {
        get { options.reconnectPolicy }
        set { options.reconnectPolicy = newValue }
    }

    /// Download to this file (the response type is then ``DownloadedFile``), moved here only on success.
    public var downloadDestination: URL? {
        get { options.downloadDestination }
        set { options.downloadDestination = newValue }
    }

    /// For a ``WebSocket`` request: the subprotocols offered, in order of preference, each an HTTP
    /// token; ``WebSocket/negotiatedProtocol`` says which the server chose.
    public var webSocketProtocols: [String] {
        get { options.webSocketProtocols }
        set { options.webSocketProtocols = newValue }
        _modify { yield &options.webSocketProtocols }
    }

    /// For a ``WebSocket`` request: its options; `nil` for ``ServiceProvider/webSocketOptions``.
    public var webSocketOptions: WebSocketOptions? {
        get { options.webSocketOptions }
        set { options.webSocketOptions = newValue }
    }

    /// Whether a download that breaks continues where it stopped (`Range`, `If-Range` with the
    /// response's validator), up to 10 times within the timeout; only for a `GET` with a
    /// ``downloadDestination`` and no `Range` of its own. Default `false`.
    public var resumesDownloads: Bool {
        get { options.resumesDownloads }
        set { options.resumesDownloads = newValue }
    }

    // BEGIN settings table (scripts/settings.py writes this region from Manager/Settings.toml)
    /// The largest response body accepted, in bytes, after decompression; `nil` uses ``NetworkManager/maximumResponseSize``.
    public var maximumResponseSize: Int? {
        get { options.maximumResponseSize }
        set { options.maximumResponseSize = newValue }
    }

    /// How far a compressed response may expand; `nil` uses ``NetworkManager/decompressionLimit``.
    public var decompressionLimit: DecompressionLimit? {
        get { options.decompressionLimit }
        set { options.decompressionLimit = newValue }
    }

    /// Whether this request's path is sent as given, `.` and `..` segments kept; `nil` uses the provider's,
    /// then ``NetworkManager/sendsPathAsIs``.
    public var sendsPathAsIs: Bool? {
        get { options.sendsPathAsIs }
        set { options.sendsPathAsIs = newValue }
    }
    // END settings table

    /// Called with upload and download progress, about ten times a second at most, on the library's
    /// network thread: keep it short. `nil` (the default) does not track progress; see ``progressUpdates()``.
    public var onProgress: (@Sendable (TransferProgress) -> Void)? {
        get { options.onProgress }
        set { options.onProgress = newValue }
    }

    /// Progress as an `AsyncStream` that finishes when the request ends. Sets ``onProgress``.
    public func progressUpdates() -> AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(64))
        onProgress = { continuation.yield($0) }
        options.progressFinished = { continuation.finish() }
        return stream
    }


    // MARK: The pipeline

    /// This request's own interceptors: innermost. See ``RequestInterceptor``.
    public var interceptors: [any RequestInterceptor] {
        get { options.interceptors }
        set { options.interceptors = newValue }
        _modify { yield &options.interceptors }
    }

    /// Compresses the body before it is sent (`Content-Encoding`); `nil` (the default) sends it as
    /// it is. Only a body held in memory can be: a streamed one fails with
    /// ``NetworkError/invalidRequest(_:)``. Interceptors see (and sign) the compressed body. See ``BodyCompression``.
    public var bodyCompression: BodyCompression? {
        get { options.bodyCompression }
        set { options.bodyCompression = newValue }
    }

    /// This request's own middlewares: innermost, once per call. See ``RequestMiddleware``.
    public var middlewares: [any RequestMiddleware] {
        get { options.middlewares }
        set { options.middlewares = newValue }
        _modify { yield &options.middlewares }
    }

    /// Which redirects this request follows; `nil` uses the provider's, then ``NetworkManager/redirectPolicy``.
    public var redirectPolicy: RedirectPolicy? {
        get { options.redirectPolicy }
        set { options.redirectPolicy = newValue }
    }

    /// How this request uses the manager's response cache (``NetworkManager/cache``); `nil` uses
    /// ``ServiceProvider/cachePolicy``, else ``CachePolicy/useProtocol`` (RFC 9111). No effect without a cache.
    public var cachePolicy: CachePolicy? {
        get { options.cachePolicy }
        set { options.cachePolicy = newValue }
    }

    /// Sends another copy when the answer is slow (``Hedging``): for a `GET` or `HEAD` without a
    /// body, stream or download, ignored on others. Default `nil`: never.
    public var hedging: Hedging? {
        get { options.hedging }
        set { options.hedging = newValue }
    }

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
