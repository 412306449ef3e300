import Foundation

/// Describes one backend: where it lives, the headers it wants, and how its answers are validated.
/// Only `host` and `httpScheme` are required. An optional setting left `nil` (the default) uses
/// the manager's; a request's own setting wins over both. Called from any thread.
public protocol ServiceProvider: Sendable {
    /// The host name or IP address, without scheme, port or path.
    var host: String { get }
    var httpScheme: HTTPScheme { get }
    /// The type of ``port``: `Int` or `Int?`. Inferred; never written.
    associatedtype Port = Int?

    /// The port, `Int` or `Int?` (`nil`: the scheme's); another type does not compile. Through `any
    /// ServiceProvider` read ``portNumber``. Outside 1...65535: ``NetworkError/invalidRequest(_:)``.
    var port: Port { get }

    /// ``port`` as an `Int?`. Do not implement it (its default is what rejects other `port` types).
    var portNumber: Int? { get }

    /// A path every endpoint starts with, such as `"/api/v2"`, joined with exactly one `/`. Default `""`.
    var basePath: String { get }

    /// The headers every request carries, called just before each is sent. Default: none.
    func createHTTPHeaders() async throws -> [String: String]

    /// Sees, and may change, each attempt to this provider's own origin just before it is sent
    /// (not again for a redirect). Default: nothing. A thrown `NetworkError` reaches the caller as
    /// it is, a `CancellationError` as ``NetworkError/cancelled``, others as ``NetworkError/invalidRequest(_:)``.
    func adapt(_ request: inout OutgoingRequest) async throws

    /// Turns a response into the value a request asked for, or throws. The default is
    /// ``HTTPResponse/validateStatus(acceptable:)-(Range<Int>?)`` then ``HTTPResponse/decode(_:using:)``.
    func parseAndValidate<Response: Decodable>(_ response: HTTPResponse, as type: Response.Type) throws -> Response

    /// The decoder for this backend's JSON. Default: a plain `JSONDecoder`.
    var jsonDecoder: JSONDecoder { get }

    /// Whether FastJSON may decode this backend's responses (``NetworkManager/usesFastJSONDecoder``). Default `true`.
    var usesFastJSONDecoder: Bool { get }

    /// The encoder for JSON bodies; a request's `jsonEncoder` wins. Default: keys sorted, so the same
    /// value is always the same bytes (signatures, caches); add `.sortedKeys` to your own for that.
    var jsonEncoder: JSONEncoder { get }

    /// The statuses that count as success, as one range. Default `200..<300`.
    var acceptableStatusCodes: Range<Int> { get }

    /// The statuses that count as success. Default: ``acceptableStatusCodes``. Declare it as
    /// `StatusCodes`: another type is another property, and the default would apply.
    var acceptableStatuses: StatusCodes { get }

    /// The type of this backend's error bodies, decoded into ``NetworkError/Context/serverError``. Default `nil`.
    var errorBodyType: (any ServerErrorBody.Type)? { get }

    /// How requests prove who they come from. Default `nil`.
    var authentication: Authentication? { get }

    /// When failed requests are tried again. Default `nil`: never.
    var retryPolicy: RetryPolicy? { get }

    /// Header names whose values are secrets: redacted wherever shown, sent only to this origin.
    var secretHeaderNames: Set<String> { get }

    /// Query items whose values are secrets, compared ignoring case. Default: none.
    var secretQueryItemNames: Set<String> { get }

    /// A Unix domain socket to use instead of TCP (`"/var/run/docker.sock"`). Default `nil`.
    var unixSocketPath: String? { get }

    /// The WebSocket options of this backend's sockets.
    var webSocketOptions: WebSocketOptions? { get }

    /// The certificate presented to this origin only (mutual TLS). Default `nil`.
    var clientCertificate: ClientCertificate? { get }
    /// Interceptors after the manager's, before the request's, for this origin only. Default: none.
    var interceptors: [any RequestInterceptor] { get }

    /// Middlewares after the manager's, before the request's, once per call. Default: none.
    var middlewares: [any RequestMiddleware] { get }

    /// Which redirects this backend's requests follow.
    var redirectPolicy: RedirectPolicy? { get }

    /// How many of this backend's requests may be in flight at once per origin; the rest wait.
    /// Default `nil`: the manager's ``NetworkManager/maximumRequestsPerOrigin``. See ``OriginLimit``.
    var maximumRequestsPerOrigin: OriginLimit? { get }

    /// `true` mocks this backend, `false` keeps it live; `nil` follows the manager.
    var areMocksEnabled: Bool? { get }

    /// Timeouts, part by part over the manager's; a request's ``BaseRequest/requestTimeout`` wins.
    var timeouts: Timeouts? { get }

    /// How requests use the manager's cache; `nil` means ``CachePolicy/useProtocol``.
    var cachePolicy: CachePolicy? { get }

    /// Whether responses carrying credentials may be stored in a disk cache. Default `false` (in
    /// memory only, so one user's data is not left on disk); credentials are never written to disk.
    var cachesAuthorizedResponsesOnDisk: Bool { get }

    /// TLS rules for this origin in place of the manager's; the manager's pins are checked on top.
    var tls: TLSOptions? { get }

    /// Fails requests at once while this backend keeps failing (``CircuitBreaker``). Default `nil`.
    var circuitBreaker: CircuitBreaker? { get }

    // BEGIN settings table (scripts/settings.py writes this region from Manager/Settings.toml)
    /// The HTTP version.
    var httpVersion: HTTPVersion? { get }

    /// TCP keepalive.
    var keepAlive: KeepAlive? { get }

    /// The proxy for this backend. Write `ProxyConfiguration.none` in full: a bare `.none` is `nil`.
    var proxy: ProxyConfiguration? { get }

    /// Which IP addresses connections use.
    var ipFamily: IPFamily? { get }

    /// How long the host name stays resolved.
    var dnsCacheTimeout: Duration? { get }

    /// The Happy Eyeballs timeout.
    var happyEyeballsTimeout: Duration? { get }

    /// The network interface connections leave from.
    var networkInterface: String? { get }

    /// Whether this backend's paths are sent as given, `.` and `..` segments kept.
    var sendsPathAsIs: Bool? { get }

    /// The DNS over HTTPS resolver for this backend's host names.
    var dnsOverHTTPS: URL? { get }

    /// Addresses given for this backend's names, used instead of resolving them.
    var resolve: [ResolveEntry]? { get }
    // END settings table
}

extension ServiceProvider where Port == Int? {
    public var port: Int? { nil }
    public var portNumber: Int? { port }
}

extension ServiceProvider where Port == Int {
    public var portNumber: Int? { port }
}

extension ServiceProvider {
    public var basePath: String { "" }

    public func createHTTPHeaders() async throws -> [String: String] { [:] }

    public func adapt(_ request: inout OutgoingRequest) async throws {}

    public func parseAndValidate<Response: Decodable>(_ response: HTTPResponse, as type: Response.Type) throws -> Response {
        try response.validateStatus()
        return try response.decode(type)
    }

    public var jsonDecoder: JSONDecoder { sharedJSONDecoder }
    public var jsonEncoder: JSONEncoder { sharedJSONEncoder }
    public var usesFastJSONDecoder: Bool { true }
    public var acceptableStatusCodes: Range<Int> { 200..<300 }
    public var acceptableStatuses: StatusCodes { StatusCodes(acceptableStatusCodes) }
    public var errorBodyType: (any ServerErrorBody.Type)? { nil }
    public var authentication: Authentication? { nil }
    public var retryPolicy: RetryPolicy? { nil }
    public var secretHeaderNames: Set<String> { [] }
    public var secretQueryItemNames: Set<String> { [] }
    public var unixSocketPath: String? { nil }
    public var interceptors: [any RequestInterceptor] { [] }
    public var middlewares: [any RequestMiddleware] { [] }
    public var redirectPolicy: RedirectPolicy? { nil }
    public var maximumRequestsPerOrigin: OriginLimit? { nil }
    public var areMocksEnabled: Bool? { nil }
    public var timeouts: Timeouts? { nil }
    public var clientCertificate: ClientCertificate? { nil }
    public var cachePolicy: CachePolicy? { nil }
    public var cachesAuthorizedResponsesOnDisk: Bool { false }
    public var tls: TLSOptions? { nil }
    public var circuitBreaker: CircuitBreaker? { nil }
}

private let sharedJSONDecoder = JSONDecoder()

/// Keys sorted, so that a body's bytes do not change from one run to the next.
private let sharedJSONEncoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return encoder
}()
