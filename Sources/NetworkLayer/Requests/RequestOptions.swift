import Foundation

/// Every setting of one ``BaseRequest`` but its `parser` (see `BaseRequest.options`), each read and
/// written through the request's public property of the same name.
///
/// Code that resolves a request reads the fields in place (`request.options.retryPolicy`), never a
/// copy of the whole value: a copy retains every reference it holds.
struct RequestOptions {
    var params: [String: any Sendable] = [:]
    var additionalHeaders: [String: String] = [:]
    /// `requestTimeout` once set; `nil` leaves the provider's, then the manager's.
    var explicitTimeout: Duration?
    var httpMethod: HTTPMethod = .get
    var priority: RequestPriority = .normal
    var mockedResponseFilename: String?
    var operationID: String?
    var body: RequestBody?
    var parameterEncoding: ParameterEncoding?
    var arrayEncoding: ArrayEncoding = .repeatedKeys
    var jsonEncoder: JSONEncoder?
    var jsonDecoder: JSONDecoder?
    var keyPath: String?
    var acceptableStatusCodes: Range<Int>?
    var acceptableStatuses: StatusCodes?
    var validator: (@Sendable (HTTPResponse) throws -> Void)?
    var errorBodyType: (any ServerErrorBody.Type)?
    var requiresAuthentication: Bool = true
    var secretHeaderNames: Set<String> = []
    var secretQueryItemNames: Set<String> = []
    var retryPolicy: RetryPolicy?
    var reconnectPolicy: ReconnectPolicy?
    var downloadDestination: URL?
    var webSocketProtocols: [String] = []
    var webSocketOptions: WebSocketOptions?
    var resumesDownloads: Bool = false
    // BEGIN settings table (scripts/settings.py writes this region from Manager/Settings.toml)
    var maximumResponseSize: Int?
    var decompressionLimit: DecompressionLimit?
    var sendsPathAsIs: Bool?
    // END settings table
    var onProgress: (@Sendable (TransferProgress) -> Void)?
    /// Ends the stream made by `progressUpdates()`.
    var progressFinished: (@Sendable () -> Void)?
    var interceptors: [any RequestInterceptor] = []
    var bodyCompression: BodyCompression?
    var middlewares: [any RequestMiddleware] = []
    var redirectPolicy: RedirectPolicy?
    var cachePolicy: CachePolicy?
    var hedging: Hedging?
}
