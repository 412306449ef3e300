import Foundation

/// One endpoint of a backend. Subclass it, naming the response type as the generic parameter.
///
/// The response type is a phantom: it is never stored, it only tells ``NetworkManager/perform(_:isolation:)``
/// what to decode. Set the endpoint's details in the subclass's initializer:
///
/// ```swift
/// final class ITunesSearchRequest: BaseRequest<ITunesSearchResponse> {
///     init(artist: String, limit: Int) {
///         super.init(serviceProvider: ITunesServiceProvider(), endpoint: "/search")
///         params = ["term": artist, "limit": limit]
///         mockedResponseFilename = "ITunesSearchMockedResponse"
///     }
/// }
/// ```
///
/// A request is a plain mutable object: build it on any actor, then hand it to the manager.
/// The manager takes an immutable snapshot of it when the request starts, so changing the object
/// afterwards does not affect a request already running.
// @exclusivity(unchecked) on every stored property: resolving a request reads them all, and the
// runtime's access checks cost a measurable share of a small GET (Benchmarks/RESULTS.md). A request
// is not Sendable, so the compiler keeps other threads out; what the checks would catch is only a
// caller starting this request from inside its own mutation of one of these properties.
open class BaseRequest<Response: Decodable & Sendable> {
    /// The path, starting with `/`, appended to the provider's `scheme://host[:port]`.
    /// It may carry its own query (`/search?country=it`); `params` are appended to it.
    @exclusivity(unchecked) public var endpoint: String

    /// The parameters: the query string for `GET`, `HEAD` and `OPTIONS`, a JSON body for `POST`,
    /// `PUT`, `PATCH` and `DELETE`.
    ///
    /// Values may be strings, booleans, integers, floating-point numbers, `Decimal`, `Date`
    /// (ISO 8601), `URL`, `UUID`, `nil`, and arrays and dictionaries of these. In a query, arrays
    /// repeat their key (`tag=a&tag=b`), dictionaries nest with brackets (`filter[year]=1992`) and
    /// `nil` leaves the key out; in JSON they are what they look like, `nil` being `null`.
    @exclusivity(unchecked) public var params: [String: any Sendable] = [:]

    /// Headers for this request only. They override the provider's headers of the same name,
    /// ignoring case.
    @exclusivity(unchecked) public var additionalHeaders: [String: String] = [:]

    /// How long the whole request may take, in seconds, from start to the last body byte, every
    /// attempt and redirect included. `.infinity` means no limit, and so does any value beyond
    /// 10⁹ seconds (about 31 years); zero, negative and NaN values are refused with
    /// ``NetworkError/invalidRequest(_:)`` when the request starts.
    ///
    /// When set, it wins over the provider's and the manager's ``Timeouts/request``; unset, the
    /// request uses theirs, else 60 s (which is what this property reads until it is set).
    public var timeout: TimeInterval {
        get { explicitTimeout ?? Timeouts.defaultRequest }
        set { explicitTimeout = newValue }
    }

    /// The timeout this request set, if it set one.
    @exclusivity(unchecked) var explicitTimeout: TimeInterval?

    /// The HTTP method. Default `.get`.
    @exclusivity(unchecked) public var httpMethod: HTTPMethod = .get

    /// The backend this endpoint belongs to.
    @exclusivity(unchecked) public var serviceProvider: any ServiceProvider

    /// The mock file answering this request in mock mode, without the `.json` extension.
    @exclusivity(unchecked) public var mockedResponseFilename: String?

    /// The name of the operation this request performs (an OpenAPI `operationId`, `getGreeting`),
    /// or `nil` (the default). Not sent: it names the call in the text log (`[NetworkLayer #12
    /// getGreeting]`), in ``NetworkLogEntry/operationID``, in ``OutgoingRequest/operationID`` (a
    /// middleware's span or metric), and in mock mode, where
    /// `Net.mocks.register(operationID:…)` answers it and, after
    /// ``mockedResponseFilename``, `MockResponses/<operationID>.json` does.
    @exclusivity(unchecked) public var operationID: String?

    // MARK: Bodies and encodings

    /// An explicit body, sent instead of `params` (which then go to the query string).
    /// See ``RequestBody`` for JSON, form, multipart, raw and file bodies. Default `nil`.
    @exclusivity(unchecked) public var body: RequestBody?

    /// Where `params` go: `nil` (the default) chooses by method, query for GET/HEAD/OPTIONS and
    /// JSON for the others; `.query`, `.json` or `.form` choose explicitly.
    @exclusivity(unchecked) public var parameterEncoding: ParameterEncoding?

    /// How arrays in `params` (and form bodies) are written: `tag=a&tag=b` (the default),
    /// `tag[]=a&tag[]=b` or `tag=a,b`. Nested dictionaries always use brackets: `filter[year]=1992`.
    @exclusivity(unchecked) public var arrayEncoding: ArrayEncoding = .repeatedKeys

    /// The encoder for ``RequestBody/json(_:encoder:)`` bodies; `nil` uses the provider's.
    @exclusivity(unchecked) public var jsonEncoder: JSONEncoder?

    // MARK: Decoding and validation

    /// The decoder for the response; `nil` uses the provider's ``ServiceProvider/jsonDecoder``.
    @exclusivity(unchecked) public var jsonDecoder: JSONDecoder?

    /// Decode the response at this dot-separated key path (`"data.items"`) instead of from the
    /// top level, so a wrapper type need not be written. Default `nil`.
    @exclusivity(unchecked) public var keyPath: String?

    /// The statuses that count as success, as one range; `nil` uses the provider's
    /// (``ServiceProvider/acceptableStatuses``). ``acceptableStatuses`` wins over it when both are set.
    @exclusivity(unchecked) public var acceptableStatusCodes: Range<Int>?

    /// The statuses that count as success, as ranges and single codes: `StatusCodes(200..<300, 304)`.
    /// `nil` (the default) uses ``acceptableStatusCodes``, else the provider's
    /// ``ServiceProvider/acceptableStatuses``. The request wins over the provider, and the set over
    /// the range; see ``StatusCodes``.
    @exclusivity(unchecked) public var acceptableStatuses: StatusCodes?

    /// This request's own check of a response, run for a response with an acceptable status,
    /// before the provider's `parseAndValidate`. Default `nil`.
    ///
    /// Throw to refuse the response. An error of your own type reaches the caller as
    /// ``NetworkError/validation(_:)`` with it as `underlyingError` and the response as
    /// `context.response`; a `NetworkError` reaches the caller as it is. It runs in mock mode
    /// too, on the mocked response. It is called on whatever thread runs the request.
    ///
    /// ```swift
    /// validator = { response in
    ///     if response.value(forHeader: "X-Order-State") == "held" { throw OrderHeld() }
    /// }
    /// // ...
    /// catch { if let held = error.underlyingError as? OrderHeld { ... } }
    /// ```
    @exclusivity(unchecked) public var validator: (@Sendable (HTTPResponse) throws -> Void)?

    /// The type of the error bodies this endpoint's server sends with failing statuses; `nil`
    /// (the default) uses the provider's ``ServiceProvider/errorBodyType``. See ``ServerErrorBody``.
    @exclusivity(unchecked) public var errorBodyType: (any ServerErrorBody.Type)?

    // MARK: Authentication, retries, transfers

    /// Whether the provider's ``ServiceProvider/authentication`` applies. Set `false` for the
    /// public endpoints of an authenticated backend. Default `true`.
    @exclusivity(unchecked) public var requiresAuthentication = true

    /// Names of headers whose values are secrets in this request, compared ignoring case, on top
    /// of the provider's ``ServiceProvider/secretHeaderNames``, the manager's
    /// ``NetworkManager/redactedHeaderNames``, what the authentication adds and names that look
    /// secret. Their values read `<redacted>` in the log, in error descriptions, in copy-as-curl
    /// and in recorded mock sidecars, and they are sent only to the origin the request was made
    /// for: a redirect to another origin leaves them behind. Default: none.
    ///
    /// ```swift
    /// additionalHeaders["X-Upload-Ticket"] = ticket
    /// secretHeaderNames = ["X-Upload-Ticket"]
    /// ```
    @exclusivity(unchecked) public var secretHeaderNames: Set<String> = []

    /// Names of query items whose values are secrets in this request, compared ignoring case
    /// (and as decoded), on top of the provider's ``ServiceProvider/secretQueryItemNames`` and
    /// the manager's ``NetworkManager/redactedQueryItemNames``. Their values read `<redacted>` in
    /// every URL the library shows. Default: none.
    @exclusivity(unchecked) public var secretQueryItemNames: Set<String> = []

    /// When this request is tried again after a failure; `nil` uses the provider's policy.
    @exclusivity(unchecked) public var retryPolicy: RetryPolicy?

    /// Whether an ``EventStream`` response connects again, with `Last-Event-ID`, when its
    /// connection ends; `nil` (the default) ends the loop instead. A `POST` or `PATCH` reconnects
    /// only when the policy says so. See ``ReconnectPolicy``.
    ///
    /// ```swift
    /// request.reconnectPolicy = .eventSource(maximumAttempts: 10)
    /// ```
    @exclusivity(unchecked) public var reconnectPolicy: ReconnectPolicy?

    /// Download to this file instead of memory (the response type is then ``DownloadedFile``).
    /// The body streams to a temporary file and is moved here only on success. Default `nil`.
    @exclusivity(unchecked) public var downloadDestination: URL?

    /// For a ``WebSocket`` request: the subprotocols offered, in order of preference
    /// (`Sec-WebSocket-Protocol`); ``WebSocket/negotiatedProtocol`` says which the server chose.
    /// Each must be an HTTP token. Default: none.
    @exclusivity(unchecked) public var webSocketProtocols: [String] = []

    /// For a ``WebSocket`` request: its options; `nil` (the default) for the provider's
    /// ``ServiceProvider/webSocketOptions``, else the manager's ``NetworkManager/webSocketOptions``.
    @exclusivity(unchecked) public var webSocketOptions: WebSocketOptions?

    /// Whether a download that breaks after part of its body continues where it stopped instead
    /// of starting again. Default `false`.
    ///
    /// When the transfer fails (the connection closes, a timeout, a reset) and the response gave a
    /// validator (a strong `ETag`, else `Last-Modified`), the next attempt asks for the rest with
    /// `Range: bytes=<received>-` and `If-Range: <validator>`, and appends it to the same
    /// temporary file: a 206 from that byte continues, a 200 (the resource changed) starts over,
    /// a 416 fails the request as its status says. Up to 10 resumes, each after some progress,
    /// within the request's timeout; progress counts from the bytes already received. Only for a
    /// `GET` with a ``downloadDestination`` and no `Range` header of its own.
    @exclusivity(unchecked) public var resumesDownloads = false

    /// The largest response body accepted, in bytes, counted after decompression; a larger body
    /// fails with ``NetworkError/transport(_:)``. `nil` uses ``NetworkManager/maximumResponseSize``.
    @exclusivity(unchecked) public var maximumResponseSize: Int?

    /// How far a compressed response may expand when it is decoded; `nil` uses
    /// ``NetworkManager/decompressionLimit`` (by default ``DecompressionLimit/standard``).
    @exclusivity(unchecked) public var decompressionLimit: DecompressionLimit?

    /// Called with upload and download progress, at most about ten times a second and once at the
    /// end, on the library's network thread: keep it short (update a value, yield to a stream).
    /// Default `nil`: progress is not tracked at all. See ``progressUpdates()`` for an `AsyncStream`.
    @exclusivity(unchecked) public var onProgress: (@Sendable (TransferProgress) -> Void)?

    /// Progress as an `AsyncStream` that finishes when the request ends. Sets ``onProgress``.
    ///
    /// ```swift
    /// let request = BackupRequest(to: destination)
    /// let updates = request.progressUpdates()
    /// Task { for await progress in updates { print(progress.fractionCompleted ?? 0) } }
    /// let file = try await Net.perform(request)
    /// ```
    public func progressUpdates() -> AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(64))
        onProgress = { continuation.yield($0) }
        progressFinished = { continuation.finish() }
        return stream
    }

    /// Ends the stream made by ``progressUpdates()``.
    @exclusivity(unchecked) var progressFinished: (@Sendable () -> Void)?

    // MARK: The pipeline

    /// This request's own interceptors: innermost, after the manager's and the provider's adapt,
    /// and the first asked whether to retry. Default: none. See ``RequestInterceptor``.
    @exclusivity(unchecked) public var interceptors: [any RequestInterceptor] = []

    /// Compresses the body before it is sent, with `Content-Encoding` naming the coding; `nil`
    /// (the default) sends it as it is. Only a body held in memory (``body`` data or JSON,
    /// `params`) can be: a streamed one fails with ``NetworkError/invalidRequest(_:)``.
    ///
    /// ```swift
    /// request.bodyCompression = .gzip
    /// ```
    ///
    /// Interceptors and the provider's `adapt(_:)` see the compressed body (a signature covers
    /// what is sent); `Content-Length` is its size. See ``BodyCompression``.
    @exclusivity(unchecked) public var bodyCompression: BodyCompression?

    /// This request's own middlewares: innermost, after the manager's and the provider's, once
    /// per call. Default: none. See ``RequestMiddleware``.
    @exclusivity(unchecked) public var middlewares: [any RequestMiddleware] = []

    /// Which redirects this request follows; `nil` uses the provider's, then the manager's
    /// (``NetworkManager/redirectPolicy``, by default ``RedirectPolicy/follow(maximum:)``).
    @exclusivity(unchecked) public var redirectPolicy: RedirectPolicy?

    /// How this request uses the manager's response cache (``NetworkManager/cache``); `nil` uses
    /// the provider's ``ServiceProvider/cachePolicy``, else ``CachePolicy/useProtocol`` (RFC 9111).
    /// No effect while the manager has no cache.
    ///
    /// ```swift
    /// request.cachePolicy = .returnCacheDontLoad   // offline: what is stored, or an error
    /// ```
    ///
    /// The request's own `Cache-Control` header (`no-cache`, `no-store`, `max-age`, `max-stale`,
    /// `min-fresh`, `only-if-cached`) is honoured under ``CachePolicy/useProtocol``.
    @exclusivity(unchecked) public var cachePolicy: CachePolicy?

    /// Turns the response into the value, instead of the provider's `parseAndValidate` (JSON
    /// decoding): for a body that is not JSON (bytes, text, CSV, protobuf). Default `nil`.
    ///
    /// The status is validated first, as the default `parseAndValidate` does (the acceptable
    /// statuses, the error body type), and the request's ``validator`` runs before that. An error
    /// it throws reaches the caller as ``NetworkError/serialization(_:)`` with it as
    /// `underlyingError` (a `NetworkError` as it is).
    ///
    /// ```swift
    /// request.parser = { response in try Base64(response.body) }
    /// ```
    @exclusivity(unchecked) public var parser: (@Sendable (HTTPResponse) throws -> Response)?

    /// The full URL of a request made with ``init(serviceProvider:url:)``; `nil` for a path under the provider.
    @exclusivity(unchecked) var targetURL: URL?

    /// Creates a request for `endpoint` on the backend `serviceProvider`.
    public init(serviceProvider: any ServiceProvider, endpoint: String) {
        self.serviceProvider = serviceProvider
        self.endpoint = endpoint
    }

    /// Creates a request for a full URL, under the rules of `serviceProvider` (validation,
    /// decoding, retries, redirects, interceptors): a `Link: <…>; rel="next"` page, a presigned
    /// download URL.
    ///
    /// The provider's credentials, secret headers, interceptors and `adapt(_:)` go with it only
    /// when the URL is at the provider's own origin (scheme, host and port); pins apply by the
    /// URL's host as always. `params` are added to the URL's query. A URL that is not `http` or
    /// `https` fails with ``NetworkError/invalidRequest(_:)`` when the request starts.
    ///
    /// ```swift
    /// let next = NextPage(serviceProvider: GitHub(), url: nextLinkURL)
    /// ```
    public init(serviceProvider: any ServiceProvider, url: URL) {
        self.serviceProvider = serviceProvider
        endpoint = url.absoluteString
        targetURL = url
    }
}
