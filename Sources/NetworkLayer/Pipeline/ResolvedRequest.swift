import Foundation
import Synchronization

/// Everything one request will use, decided once when it starts (precedence: `BaseRequest.resolved(with:resumingFrom:sentTo:)`).
/// Nothing after this reads the request object, the provider's settings or the manager's again;
/// the provider is kept for its behaviours only (`createHTTPHeaders()`, `adapt(_:)`, `parseAndValidate`).
/// A class: every attempt, hop, transfer and response of the request shares it. `location` is
/// copied, not read again: a provider's computed properties could answer differently twice.
final class ResolvedRequest: Sendable {
    /// The request's class (a subclass of `BaseRequest`), which mocks can be registered for.
    let requestClass: AnyObject.Type
    let provider: any ServiceProvider

    // MARK: What it sends

    let location: Location
    let method: HTTPMethod
    let target: Target
    /// The converted `params`, or why they cannot be sent (reported once the request runs).
    let parameters: Result<ParameterValue, NetworkError>
    let body: RequestBody?
    /// How the body is compressed before it is sent (``BaseRequest/bodyCompression``).
    let bodyCompression: BodyCompression?
    let parameterEncoding: ParameterEncoding?
    let arrayEncoding: ArrayEncoding
    let jsonEncoder: JSONEncoder
    let additionalHeaders: [String: String]
    let authentication: Authentication?
    let secretNames: SecretNames

    // MARK: Limits and policies

    let timeout: TimeInterval
    let retryPolicy: RetryPolicy?
    /// How an event stream connects again; `nil` when it does not (the request's only).
    let reconnectPolicy: ReconnectPolicy?
    let redirectPolicy: RedirectPolicy
    let interceptors: Interceptors
    /// The manager's, the provider's and the request's middlewares, outermost first.
    let middlewares: [any RequestMiddleware]
    let networkMiddlewares: [any RequestMiddleware]
    /// The transfer's settings: CA bundle, pins, proxy, Unix socket, cookie store, size limits.
    let options: TransferOptions
    /// Its origin's limit and its place in the queue; `nil` without a limit, and in mock mode.
    let originLimit: LimitStep?

    // MARK: The response

    let expectations: ResponseExpectations
    /// The request's own check of an acceptable response, before the provider's `parseAndValidate`.
    let validator: (@Sendable (HTTPResponse) throws -> Void)?
    /// How the body is read while it arrives, for a streaming response type; `nil` for a complete one.
    let streamKind: StreamKind?
    let downloadDestination: URL?
    /// Whether a download that breaks continues where it stopped (``BaseRequest/resumesDownloads``).
    let resumesDownloads: Bool
    /// Where an earlier download stopped, to continue from (``NetworkManager/perform(_:resumingFrom:isolation:)``).
    let resumeData: ResumeData?
    /// Where its network traffic is recorded (``NetworkManager/recordsTraffic``), or `nil`.
    let traffic: RecordedTraffic?
    let progress: ProgressReporter?

    // MARK: Mock or live, and the log

    /// Whether mocks answer this request (the provider's choice, else the manager's).
    let isMocked: Bool
    let mockedResponseFilename: String?
    /// ``BaseRequest/operationID``: names the call in the log and in mock mode.
    let operationID: String?
    /// Where mock files are read from, for a mocked request; `nil` for a live one.
    let mockResponsesDirectory: URL?
    let mockRecordingDirectory: URL?
    let log: NetworkLog?
    /// Its events, under the log's id; `nil` when nobody listens (``CallEvents``).
    let events: CallEvents?
    /// How it uses the manager's response cache; `nil` without one, and in mock mode.
    let cache: RequestCaching?
    /// The SigV4 signatures made for its attempts: secrets no header of the request holds, which
    /// the log and errors scrub too (a server may echo them).
    let signatures = Protected<[String]>([])
    /// For a ``WebSocket`` request: the subprotocols offered and the options; `nil` otherwise.
    let webSocket: WebSocketSettings?
    /// The provider's circuit breaker; `nil` without one, and in mock mode.
    let circuitBreaker: CircuitBreaker?
    /// ``BaseRequest/hedging`` for a live `GET` or `HEAD` without a body, stream or download; else `nil`.
    let hedging: Hedging?

    /// A provider's `scheme://host[:port][/basePath]`, as it declared them (checked when a URL is built).
    struct Location: Sendable {
        let scheme: HTTPScheme
        let host: String
        let port: Int?
        let basePath: String
    }

    struct Interceptors: Sendable {
        let manager: [any RequestInterceptor]
        /// ``ServiceProvider/interceptors``: for attempts to the provider's origin only.
        let provider: [any RequestInterceptor]
        let request: [any RequestInterceptor]
    }

    enum Target: Sendable {
        /// A path (with an optional query) under the provider's `scheme://host[:port][/basePath]`.
        case endpoint(String)
        /// A full URL (``BaseRequest/init(serviceProvider:url:)``).
        case url(URL)
    }

    init(requestClass: AnyObject.Type, provider: any ServiceProvider, location: Location, method: HTTPMethod, target: Target,
         parameters: Result<ParameterValue, NetworkError>, body: RequestBody?, parameterEncoding: ParameterEncoding?,
         arrayEncoding: ArrayEncoding, jsonEncoder: JSONEncoder, additionalHeaders: [String: String],
         authentication: Authentication?, secretNames: SecretNames, timeout: TimeInterval, retryPolicy: RetryPolicy?,
         redirectPolicy: RedirectPolicy, interceptors: Interceptors, middlewares: [any RequestMiddleware] = [],
         networkMiddlewares: [any RequestMiddleware] = [], options: TransferOptions,
         expectations: ResponseExpectations, validator: (@Sendable (HTTPResponse) throws -> Void)?,
         streamKind: StreamKind?, downloadDestination: URL?, resumesDownloads: Bool, progress: ProgressReporter?, isMocked: Bool,
         mockedResponseFilename: String?, mockResponsesDirectory: URL?, mockRecordingDirectory: URL?, log: NetworkLog?,
         cache: RequestCaching? = nil, bodyCompression: BodyCompression? = nil, reconnectPolicy: ReconnectPolicy? = nil,
         operationID: String? = nil, resumeData: ResumeData? = nil, traffic: RecordedTraffic? = nil,
         webSocket: WebSocketSettings? = nil, originLimit: LimitStep? = nil, circuitBreaker: CircuitBreaker? = nil,
         hedging: Hedging? = nil, events: CallEvents? = nil) {
        self.requestClass = requestClass
        self.provider = provider
        self.location = location
        self.method = method
        self.target = target
        self.parameters = parameters
        self.body = body
        self.bodyCompression = bodyCompression
        self.parameterEncoding = parameterEncoding
        self.arrayEncoding = arrayEncoding
        self.jsonEncoder = jsonEncoder
        self.additionalHeaders = additionalHeaders
        self.authentication = authentication
        self.secretNames = secretNames
        self.timeout = timeout
        self.retryPolicy = retryPolicy
        self.redirectPolicy = redirectPolicy
        self.interceptors = interceptors
        self.middlewares = middlewares
        self.networkMiddlewares = networkMiddlewares
        self.options = options
        self.expectations = expectations
        self.validator = validator
        self.streamKind = streamKind
        self.downloadDestination = downloadDestination
        self.resumesDownloads = resumesDownloads
        self.resumeData = resumeData
        self.traffic = traffic
        self.progress = progress
        self.isMocked = isMocked
        self.mockedResponseFilename = mockedResponseFilename
        self.operationID = operationID
        self.mockResponsesDirectory = mockResponsesDirectory
        self.mockRecordingDirectory = mockRecordingDirectory
        self.log = log
        self.cache = cache
        self.reconnectPolicy = reconnectPolicy
        self.webSocket = webSocket
        self.originLimit = originLimit
        self.circuitBreaker = circuitBreaker
        self.hedging = hedging
        self.events = events
    }

    /// The endpoint as written, or the full URL's text: what names the request before its URL exists.
    var endpoint: String {
        switch target {
        case .endpoint(let endpoint): endpoint
        case .url(let url): url.absoluteString
        }
    }
}

extension BaseRequest {
    /// The manager's secret names with the header and query item names the provider and the
    /// request declare; most declare none, and the manager's are then taken as they are.
    private static func secretNames(manager: SecretNames, provider: (headers: Set<String>, queryItems: Set<String>),
                                    request: (headers: Set<String>, queryItems: Set<String>)) -> SecretNames {
        if provider.headers.isEmpty, provider.queryItems.isEmpty, request.headers.isEmpty, request.queryItems.isEmpty { return manager }
        return manager.union(SecretNames(headers: provider.headers.union(request.headers),
                                         queryItems: provider.queryItems.union(request.queryItems)))
    }

    /// The three lists in order, without those that are not active for this call; most calls
    /// have none, and join none.
    private static func middlewares(manager: [any RequestMiddleware], provider: [any RequestMiddleware],
                                    request: [any RequestMiddleware]) -> [any RequestMiddleware] {
        let all = provider.isEmpty && request.isEmpty ? manager : manager + provider + request
        return active(all)
    }

    /// `middlewares` without those whose ``RequestMiddleware/isActive`` is `false`: the same array
    /// when all are active, an empty one (no allocation) when none is.
    static func active(_ middlewares: [any RequestMiddleware]) -> [any RequestMiddleware] {
        guard let first = middlewares.firstIndex(where: { !$0.isActive }) else { return middlewares }
        var kept = Array(middlewares[..<first])
        for middleware in middlewares[(first + 1)...] where middleware.isActive { kept.append(middleware) }
        return kept
    }

    /// The request as it will run under `settings`: every setting of the request, its provider
    /// and the manager resolved once, the request's over the provider's over the manager's.
    ///
    /// | Setting | Request | Provider | Manager | Default |
    /// |---|---|---|---|---|
    /// | timeout (whole request) | `requestTimeout` | `timeouts.request` | `timeouts.request` | 60 s |
    /// | connect and idle timeouts | | `timeouts` | `timeouts` | 300 s to connect, no idle limit |
    /// | each setting of `Manager/Settings.toml` (HTTP version, keepalive, proxy, IP family, DNS cache, Happy Eyeballs, interface, response size, decompression) | its name, if its levels hold the request | its name, if they hold the provider | its name | the table's |
    /// | retry policy | `retryPolicy` | `retryPolicy` | | none |
    /// | reconnect policy (event streams) | `reconnectPolicy` | | | none |
    /// | redirect policy | `redirectPolicy` | `redirectPolicy` | `redirectPolicy` | `.follow()` |
    /// | interceptors | `interceptors` (innermost) | `interceptors`, `adapt(_:)` | `interceptors` (outermost) | none |
    /// | middlewares | `middlewares` (innermost) | `middlewares` | `middlewares` (outermost), `networkMiddlewares` | none |
    /// | acceptable statuses | `acceptableStatuses`, else `acceptableStatusCodes` | `acceptableStatuses` (default: its `acceptableStatusCodes`) | | `200..<300` |
    /// | client certificate | | `clientCertificate` | | none |
    /// | TLS versions, ciphers, CA (own origin) | | `tls` | `customCABundle` | TLS 1.2+, system store |
    /// | decoder | `jsonDecoder` | `jsonDecoder` | | `JSONDecoder()` |
    /// | FastJSON | | `usesFastJSONDecoder` | `usesFastJSONDecoder` | both must allow it |
    /// | encoder | `jsonEncoder` | `jsonEncoder` | | sorted keys |
    /// | error body | `errorBodyType` | `errorBodyType` | | none |
    /// | authentication | `requiresAuthentication` | `authentication` | | none |
    /// | secret names | `secret…Names` | `secret…Names` | `redacted…Names` | union of all |
    /// | mocks | | `areMocksEnabled` | `areMocksEnabled` | live |
    /// | Unix socket | | `unixSocketPath` | | TCP |
    /// | pins, CA bundle, cookies, host overrides | | | the manager's | none |
    /// | response cache | | | `cache` | `.none` |
    /// | cache policy | `cachePolicy` | `cachePolicy` | | `.useProtocol` |
    /// | authorized responses on disk | | `cachesAuthorizedResponsesOnDisk` | | `false` (memory only) |
    /// | circuit breaker (live only) | | `circuitBreaker` | | none |
    /// | hedging (live `GET`/`HEAD` without body, stream or download) | `hedging` | | | none |
    /// | requests in flight per origin | `priority` (its place in the queue) | `maximumRequestsPerOrigin` | `maximumRequestsPerOrigin` | no limit |
    /// | WebSocket options | `webSocketOptions` | `webSocketOptions` | `webSocketOptions` | ``WebSocketOptions/init(maximumMessageSize:compression:pingInterval:closeTimeout:maximumFrameSize:)`` |
    ///
    /// The cache is left out (`nil`) in mock mode; streams, downloads and uploads streamed from a
    /// sequence, a file or a multipart form go around it (``RequestCaching/isBypassed``).
    final func resolved(with settings: Settings = Settings(), resumingFrom resumeData: ResumeData? = nil,
                        sentTo otherProvider: (any ServiceProvider)? = nil) -> ResolvedRequest {
        let provider = otherProvider ?? serviceProvider  // read once: each read of the property is a checked access and a copy
        return resolved(with: settings, resumingFrom: resumeData, provider: provider, opened: provider)
    }

    /// ``resolved(with:resumingFrom:sentTo:)`` with the provider's existential opened once (`opened`):
    /// its values are read through its witness table directly, not projected out of the box at each read.
    /// `provider` is the same value, boxed as the resolved request keeps it (boxing `opened` again could allocate).
    private final func resolved<Provider: ServiceProvider>(with settings: Settings, resumingFrom resumeData: ResumeData?,
                                                           provider boxed: any ServiceProvider,
                                                           opened provider: Provider) -> ResolvedRequest {
        let isMocked = provider.areMocksEnabled ?? settings.areMocksEnabled
        let timeouts = provider.timeouts
        let transfer = settings.transferOptions(
            connectTimeout: (timeouts?.connect ?? settings.timeouts.connect)?.seconds,
            idleTimeout: (timeouts?.idle ?? settings.timeouts.idle)?.seconds,
            unixSocketPath: provider.unixSocketPath,
            clientCertificate: provider.clientCertificate,
            tls: provider.tls,
            table: Settings.Table(request: self, provider: provider, manager: settings.table))
        let streamKind = StreamKind(for: Response.self)
        let chosen = Self.middlewares(manager: settings.middlewares, provider: provider.middlewares, request: options.middlewares)
        let log = NetworkLog(settings: settings, mocked: isMocked, operationID: options.operationID)
        var events: CallEvents?
        if settings.eventHub != nil || (!chosen.isEmpty && chosen.contains(where: \.observesCallEvents)) {
            events = CallEvents(requestID: log?.id ?? NetworkLog.takeID(), hub: settings.eventHub)
        }
        return ResolvedRequest(
            requestClass: type(of: self),
            provider: boxed,
            location: ResolvedRequest.Location(scheme: provider.httpScheme, host: provider.host, port: provider.portNumber,
                                               basePath: provider.basePath),
            method: options.httpMethod,
            target: targetURL.map { .url($0) } ?? .endpoint(endpoint),
            parameters: options.params.isEmpty ? .success(.object([])) : Result { () throws(NetworkError) in try ParameterValue.object(from: options.params) },
            body: options.body,
            parameterEncoding: options.parameterEncoding,
            arrayEncoding: options.arrayEncoding,
            jsonEncoder: options.jsonEncoder ?? provider.jsonEncoder,
            additionalHeaders: options.additionalHeaders,
            authentication: options.requiresAuthentication ? provider.authentication : nil,
            secretNames: Self.secretNames(manager: settings.redactor.names,
                                          provider: (provider.secretHeaderNames, provider.secretQueryItemNames),
                                          request: (options.secretHeaderNames, options.secretQueryItemNames)),
            timeout: (options.explicitTimeout ?? timeouts?.request ?? settings.timeouts.request)?.seconds ?? Timeouts.defaultRequestSeconds,
            retryPolicy: options.retryPolicy ?? provider.retryPolicy,
            redirectPolicy: options.redirectPolicy ?? provider.redirectPolicy ?? settings.redirectPolicy,
            interceptors: ResolvedRequest.Interceptors(manager: settings.interceptors, provider: provider.interceptors, request: options.interceptors),
            middlewares: chosen,
            networkMiddlewares: Self.active(settings.networkMiddlewares),
            options: transfer,
            expectations: ResponseExpectations(
                // A WebSocket's handshake succeeds with 101 only (RFC 6455 §4.1).
                acceptableStatuses: streamKind == .webSocket ? StatusCodes(101..<102)
                    : StatusCodes.resolved(request: options.acceptableStatuses, requestRange: options.acceptableStatusCodes, provider: boxed),
                decoder: options.jsonDecoder ?? provider.jsonDecoder,
                keyPath: options.keyPath,
                errorBodyType: options.errorBodyType ?? provider.errorBodyType,
                usesFastJSONDecoder: provider.usesFastJSONDecoder && settings.usesFastJSONDecoder),
            validator: options.validator,
            streamKind: streamKind,
            downloadDestination: options.downloadDestination,
            resumesDownloads: options.resumesDownloads,
            progress: options.onProgress.map { ProgressReporter(report: $0, finish: options.progressFinished) },
            isMocked: isMocked,
            mockedResponseFilename: options.mockedResponseFilename,
            mockResponsesDirectory: isMocked ? settings.mockResponsesDirectory : nil,
            mockRecordingDirectory: isMocked ? nil : settings.mockRecordingDirectory,
            log: log,
            cache: isMocked ? nil : settings.responseCacheStore.map { store in
                RequestCaching(store: store, policy: options.cachePolicy ?? provider.cachePolicy ?? .useProtocol,
                               storesAuthorizedResponsesOnDisk: provider.cachesAuthorizedResponsesOnDisk,
                               isBypassed: streamKind != nil || options.downloadDestination != nil || options.body?.isUpload == true)
            },
            bodyCompression: options.bodyCompression,
            reconnectPolicy: streamKind == .events ? options.reconnectPolicy : nil,
            operationID: options.operationID,
            resumeData: resumeData,
            traffic: isMocked || !settings.recordsTraffic ? nil : settings.recordedTraffic,
            webSocket: streamKind == .webSocket
                ? WebSocketSettings(protocols: options.webSocketProtocols, options: options.webSocketOptions ?? provider.webSocketOptions ?? settings.webSocketOptions)
                : nil,
            originLimit: isMocked ? nil : (provider.maximumRequestsPerOrigin ?? settings.maximumRequestsPerOrigin).map {
                LimitStep(queues: settings.originQueues, limit: $0, priority: options.priority)
            },
            circuitBreaker: isMocked ? nil : provider.circuitBreaker,
            hedging: options.hedging.flatMap { isMocked || streamKind != nil || options.downloadDestination != nil || options.body != nil
                || (options.httpMethod != .get && options.httpMethod != .head) ? nil : $0 },
            events: events)
    }
}
