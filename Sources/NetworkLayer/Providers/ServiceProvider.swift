import Foundation

/// Describes one backend: where it lives, the headers it wants, and how its answers are validated.
///
/// Describe each backend once and give it to every request for it. Only `host` and `httpScheme`
/// are required; everything else has a default.
///
/// ```swift
/// struct ITunesServiceProvider: ServiceProvider {
///     var host: String { "itunes.apple.com" }
///     var httpScheme: HTTPScheme { .https }
///     func createHTTPHeaders() -> [String: String] { ["Accept": "application/json"] }
/// }
/// ```
///
/// Providers are `Sendable`: the manager calls them from whatever thread runs the request.
public protocol ServiceProvider: Sendable {
    /// The host name or IP address, without scheme, port or path (`"api.example.com"`, `"127.0.0.1"`).
    var host: String { get }
    /// `.https` or `.http`.
    var httpScheme: HTTPScheme { get }
    /// The type of ``port``: `Int` or `Int?`, whichever the provider declares. Inferred; never written.
    associatedtype Port = Int?

    /// The port: an `Int`, or an `Int?` whose `nil` (the default) means the scheme's own (443 or 80).
    ///
    /// Declare it either way, computed or stored; each reaches the port it names:
    ///
    /// ```swift
    /// var port: Int { 8080 }
    /// var port: Int? { ProcessInfo.processInfo.environment["PORT"].flatMap(Int.init) }
    /// let port: Int          // set in an initializer
    /// var port = 8080
    /// ```
    ///
    /// Any other type (`UInt16`, `String`) does not compile: the provider "does not conform to
    /// protocol 'ServiceProvider'", with the note "candidate would match if 'UInt16' was the same
    /// type as 'Int'". Through `any ServiceProvider`, where the type is not known, read
    /// ``portNumber``. A port outside 1...65535 fails each request with
    /// ``NetworkError/invalidRequest(_:)``.
    var port: Port { get }

    /// ``port`` as an `Int?`, whichever of `Int` and `Int?` it is declared as: what the library
    /// reads, and how to read a provider's port through `any ServiceProvider`.
    ///
    /// Do not implement it: the default reads ``port``, and exists only when `port` is an `Int`
    /// or an `Int?`, which is what makes a `port` of another type a compile error instead of a
    /// property the library would never read.
    var portNumber: Int? { get }

    /// A path every endpoint of this backend starts with, such as `"/api/v2"`. Default `""`.
    ///
    /// It is joined to each endpoint with exactly one `/` between them, however either is
    /// written: `"/api/v2"`, `"api/v2"` and `"/api/v2/"` with `"/orders"` or `"orders"` all give
    /// `/api/v2/orders`. An empty endpoint gives `/api/v2`, an endpoint `"/"` gives `/api/v2/`,
    /// and an endpoint that is only a query (`"?page=2"`) gives `/api/v2?page=2`. It may hold
    /// path characters only (no `?` or `#`); others are percent-encoded like an endpoint's.
    var basePath: String { get }

    /// The headers every request to this backend carries. Called once per request, just before
    /// it is sent, so it can fetch a fresh token. A request's `additionalHeaders` override these
    /// by name, ignoring case. Default: none. A synchronous implementation satisfies it.
    func createHTTPHeaders() async throws -> [String: String]

    /// Sees, and may change, each attempt just before it is sent, after the manager's and this
    /// provider's ``interceptors`` and before the request's. Default: nothing.
    ///
    /// Use it to sign requests (an HMAC over method, path and body; AWS Signature V4) or to add
    /// headers that depend on the URL or the body. It runs again for every retry and for the retry
    /// after a token refresh (so a timestamp or nonce is fresh each time), and in mock mode too
    /// (a recorded request shows the adapted headers). It does not run again for a redirect, and
    /// a redirect to another origin carries none of the headers it set. It runs only for
    /// attempts to this provider's own origin (a full URL elsewhere does not get it).
    ///
    /// ```swift
    /// func adapt(_ request: inout OutgoingRequest) async throws {
    ///     let payload = request.method.rawValue + request.url.path + (request.body.map { String(decoding: $0, as: UTF8.self) } ?? "")
    ///     request.setHeader("X-Signature", Signing.hex(try Signing.hmacSHA256(key: secret, message: payload)))
    /// }
    /// ```
    ///
    /// A `NetworkError` it throws reaches the caller as it is; a `CancellationError` ends the
    /// request with ``NetworkError/cancelled``; any other error with
    /// ``NetworkError/invalidRequest(_:)``, the error kept as its `underlyingError`.
    func adapt(_ request: inout OutgoingRequest) async throws

    /// Turns a response into the value a request asked for, or throws.
    ///
    /// The default validates the status with ``HTTPResponse/validateStatus(acceptable:)-(Range<Int>?)`` and
    /// decodes the body with ``HTTPResponse/decode(_:using:)``. Override it for a backend with its
    /// own rules and reuse those two steps. Mocked responses go through here too.
    func parseAndValidate<Response: Decodable>(_ response: HTTPResponse, as type: Response.Type) throws -> Response

    /// The decoder for this backend's JSON (date and key strategies). A request's `jsonDecoder`
    /// overrides it. Default: a plain `JSONDecoder`.
    var jsonDecoder: JSONDecoder { get }

    /// Whether this backend's JSON responses may be decoded by the library's own decoder,
    /// FastJSON. Default `true`.
    ///
    /// Return `false` to have Foundation's `JSONDecoder` decode every response of this backend
    /// (values and error bodies), whatever the manager's ``NetworkManager/usesFastJSONDecoder``
    /// says; `true` leaves the choice to the manager. FastJSON gives the same results as a
    /// default `JSONDecoder` and stands in only for one; see <doc:BodiesAndResponses>.
    ///
    /// ```swift
    /// struct LegacyProvider: ServiceProvider {
    ///     var host: String { "legacy.example.com" }
    ///     var httpScheme: HTTPScheme { .https }
    ///     var usesFastJSONDecoder: Bool { false }
    /// }
    /// ```
    var usesFastJSONDecoder: Bool { get }

    /// The encoder for JSON bodies built from `Encodable` values. A request's `jsonEncoder`
    /// overrides it.
    ///
    /// Default: a `JSONEncoder` that writes keys sorted (`outputFormatting = .sortedKeys`, every
    /// other option at its default), so the same value is always the same bytes, as request
    /// signatures, caches and snapshot tests need (Foundation's encoder on Linux otherwise orders
    /// keys differently from one process to the next). An encoder of your own is used as it is:
    /// add `.sortedKeys` to its `outputFormatting` if you want the same guarantee.
    var jsonEncoder: JSONEncoder { get }

    /// The statuses that count as success, as one range. A request's `acceptableStatuses` or
    /// `acceptableStatusCodes` overrides it, and so does this provider's ``acceptableStatuses``.
    /// Default `200..<300`.
    var acceptableStatusCodes: Range<Int> { get }

    /// The statuses that count as success, as ranges and single codes. A request's
    /// `acceptableStatuses` or `acceptableStatusCodes` overrides it. Default: ``acceptableStatusCodes``
    /// as a set, so a provider that sets only the range keeps working.
    ///
    /// ```swift
    /// var acceptableStatuses: StatusCodes { StatusCodes(200..<300, 304) }   // 2xx and "not modified"
    /// ```
    ///
    /// Declare it as `StatusCodes` (not `StatusCodes?`): a property of another type is a different
    /// property, and the default would silently apply.
    var acceptableStatuses: StatusCodes { get }

    /// The type of the error bodies this backend sends with failing statuses, if it has one.
    ///
    /// When set, a failing response's body is decoded as this type and kept in the error's
    /// context (``NetworkError/Context/serverError``), its message shown in the description.
    /// Default `nil`.
    var errorBodyType: (any ServerErrorBody.Type)? { get }

    /// How requests prove who they come from: a bearer token (refreshed on 401 when the source
    /// can), basic credentials, or an API key in a header or query item. Default `nil`.
    var authentication: Authentication? { get }

    /// When failed requests are tried again. Default `nil`: never. A request's `retryPolicy` overrides it.
    var retryPolicy: RetryPolicy? { get }

    /// Names of headers whose values are secrets in every request to this backend, compared
    /// ignoring case. Default: none.
    ///
    /// Declare the headers that carry a credential the library cannot know about: a tenant key
    /// set in ``createHTTPHeaders()``, a session header. What ``authentication`` adds is secret
    /// already, whatever its name, and so are names that look secret (`Authorization`, `Cookie`,
    /// names with `token`, `secret`, `auth`…). A secret header's value reads `<redacted>` in the
    /// log, in error descriptions, in copy-as-curl and in recorded mock sidecars, and the header
    /// is sent only to this backend's origin (scheme, host and port): a redirect elsewhere leaves
    /// it behind. A request adds more with ``BaseRequest/secretHeaderNames``.
    ///
    /// ```swift
    /// var secretHeaderNames: Set<String> { ["X-Tenant-Key"] }
    /// ```
    var secretHeaderNames: Set<String> { get }

    /// Names of query items whose values are secrets in every request to this backend, compared
    /// ignoring case (and as decoded). Default: none. Their values read `<redacted>` in every
    /// URL the library shows. An API key ``authentication`` puts in the query is secret already.
    var secretQueryItemNames: Set<String> { get }

    /// The proxy for this backend's requests, or `nil` (the default) for the manager's
    /// ``NetworkManager/proxy``. Write `ProxyConfiguration.none` in full to send a backend
    /// direct: a bare `.none` in an optional is `nil`, the manager's proxy.
    ///
    /// ```swift
    /// var proxy: ProxyConfiguration? { ProxyConfiguration.none }
    /// ```
    var proxy: ProxyConfiguration? { get }

    /// A Unix domain socket to send this backend's requests over instead of TCP, such as
    /// `"/var/run/docker.sock"`. Default `nil`: TCP to `host` and `port`.
    ///
    /// `host` and `httpScheme` still form the URL and the `Host` header (`http://localhost/v1.43/info`);
    /// the port is ignored. Connections on the socket are kept alive and reused like TCP ones.
    /// No proxy is used. A redirect to another origin leaves the socket and goes over the network.
    /// A missing socket file, or one nobody listens on, fails with
    /// ``NetworkError/reachability(_:)`` naming the path. Pins apply to TLS only: with `.http`
    /// over a socket there is no TLS, so a pinned host is not checked, and the log says so.
    ///
    /// ```swift
    /// struct DockerEngine: ServiceProvider {
    ///     var host: String { "localhost" }
    ///     var httpScheme: HTTPScheme { .http }
    ///     var unixSocketPath: String? { "/var/run/docker.sock" }
    /// }
    /// ```
    var unixSocketPath: String? { get }

    /// The WebSocket options of this backend's sockets, or `nil` (the default) for the
    /// manager's ``NetworkManager/webSocketOptions``. A request's ``BaseRequest/webSocketOptions`` wins.
    var webSocketOptions: WebSocketOptions? { get }

    /// The certificate this client presents to the backend in the TLS handshake (mutual TLS), or
    /// `nil` (the default) for none.
    ///
    /// ```swift
    /// var clientCertificate: ClientCertificate? {
    ///     .pem(certificate: certURL, privateKey: keyURL, password: keyPassword)   // or .pkcs12(url, password:)
    /// }
    /// ```
    ///
    /// Its files are read and checked before each request is sent (cached while they do not
    /// change); a problem with them is ``NetworkError/invalidCertificate(_:)`` saying which, and
    /// nothing is sent. It is presented to this backend's origin only (a redirect elsewhere goes
    /// without it); its password is never shown. See ``ClientCertificate``.
    var clientCertificate: ClientCertificate? { get }
    /// This backend's interceptors: after the manager's, before the request's, and only for
    /// attempts to this provider's own origin. Default: none. See ``RequestInterceptor``.
    ///
    /// ```swift
    /// var interceptors: [any RequestInterceptor] { [Signer(key: Self.key)] }
    /// ```
    var interceptors: [any RequestInterceptor] { get }

    /// This backend's middlewares: after the manager's, before the request's, once per call.
    /// Default: none. See ``RequestMiddleware``.
    var middlewares: [any RequestMiddleware] { get }

    /// Which redirects this backend's requests follow; `nil` (the default) uses the manager's
    /// ``NetworkManager/redirectPolicy``. A request's own ``BaseRequest/redirectPolicy`` wins.
    var redirectPolicy: RedirectPolicy? { get }

    /// Whether mocks answer this backend's requests: `true` mocks it while the others stay live,
    /// `false` keeps it live in mock mode; `nil` (the default) follows
    /// ``NetworkManager/areMocksEnabled``.
    ///
    /// ```swift
    /// struct Payments: ServiceProvider {
    ///     ...
    ///     var areMocksEnabled: Bool? { true }
    /// }
    /// ```
    var areMocksEnabled: Bool? { get }

    /// This backend's timeouts, part by part over the manager's (``NetworkManager/timeouts``); a
    /// request's own ``BaseRequest/timeout``, when set, wins for the whole request. Default `nil`.
    ///
    /// ```swift
    /// var timeouts: Timeouts? { Timeouts(connect: 2, request: 30) }
    /// ```
    var timeouts: Timeouts? { get }

    /// The HTTP version this backend's requests speak; `nil` (the default) uses the manager's
    /// ``NetworkManager/httpVersion``.
    ///
    /// ```swift
    /// var httpVersion: HTTPVersion? { .http1_1 }
    /// ```
    var httpVersion: HTTPVersion? { get }

    /// TCP keepalive on this backend's connections; `nil` (the default) uses the manager's
    /// ``NetworkManager/keepAlive``.
    ///
    /// ```swift
    /// var keepAlive: KeepAlive? { KeepAlive(idle: .seconds(20), interval: .seconds(10)) }
    /// ```
    var keepAlive: KeepAlive? { get }

    /// How this backend's requests use the manager's response cache (``NetworkManager/cache``);
    /// `nil` (the default) means ``CachePolicy/useProtocol``, RFC 9111. A request's own
    /// ``BaseRequest/cachePolicy`` wins. No effect while the manager has no cache.
    ///
    /// ```swift
    /// var cachePolicy: CachePolicy? { .returnCacheElseLoad }   // a catalogue that rarely changes
    /// ```
    var cachePolicy: CachePolicy? { get }

    /// Whether responses to this backend's requests that carry credentials (`Authorization`, or
    /// whatever its ``authentication`` adds) may be stored in a disk cache. Default `false`: they
    /// are kept in memory only, so that one user's data is not left on disk after the process
    /// ends. Either way the credentials themselves are never written to disk (entries are keyed
    /// by their SHA-256 digest), and a stored response is only ever served to a request carrying
    /// the same credentials.
    ///
    /// ```swift
    /// var cachesAuthorizedResponsesOnDisk: Bool { true }   // a single-user desktop app
    /// ```
    var cachesAuthorizedResponsesOnDisk: Bool { get }

    /// This backend's own TLS rules (versions, ciphers, the CA certificates its servers are
    /// verified with), in place of the manager's for its origin only; `nil` (the default) keeps
    /// the manager's. The manager's pins are checked on top. See ``TLSOptions``.
    ///
    /// ```swift
    /// var tls: TLSOptions? { TLSOptions(minimumVersion: .v1_3, trustedCertificates: caURL) }
    /// ```
    var tls: TLSOptions? { get }

    /// Which IP addresses this backend's connections use; `nil` (the default) for the manager's
    /// ``NetworkManager/ipFamily``.
    ///
    /// ```swift
    /// var ipFamily: IPFamily? { .ipv6Only }
    /// ```
    var ipFamily: IPFamily? { get }

    /// How long this backend's host name stays resolved; `nil` (the default) for the manager's
    /// ``NetworkManager/dnsCacheTimeout``.
    var dnsCacheTimeout: Duration? { get }

    /// This backend's Happy Eyeballs timeout; `nil` (the default) for the manager's
    /// ``NetworkManager/happyEyeballsTimeout``.
    var happyEyeballsTimeout: Duration? { get }

    /// The network interface this backend's connections leave from; `nil` (the default) for the
    /// manager's ``NetworkManager/networkInterface``.
    var networkInterface: String? { get }
}

extension ServiceProvider where Port == Int? {
    /// No port of its own: the scheme's (443 or 80).
    public var port: Int? { nil }
    /// ``port``, as it is.
    public var portNumber: Int? { port }
}

extension ServiceProvider where Port == Int {
    /// ``port``, as it is.
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
    public var proxy: ProxyConfiguration? { nil }
    public var unixSocketPath: String? { nil }
    public var interceptors: [any RequestInterceptor] { [] }
    public var middlewares: [any RequestMiddleware] { [] }
    public var redirectPolicy: RedirectPolicy? { nil }
    public var areMocksEnabled: Bool? { nil }
    public var timeouts: Timeouts? { nil }
    public var httpVersion: HTTPVersion? { nil }
    public var keepAlive: KeepAlive? { nil }
    public var clientCertificate: ClientCertificate? { nil }
    public var cachePolicy: CachePolicy? { nil }
    public var cachesAuthorizedResponsesOnDisk: Bool { false }
    public var tls: TLSOptions? { nil }
    public var ipFamily: IPFamily? { nil }
    public var dnsCacheTimeout: Duration? { nil }
    public var happyEyeballsTimeout: Duration? { nil }
    public var networkInterface: String? { nil }
}

/// The default coders: `JSONDecoder` and `JSONEncoder` are `Sendable`, and safe to share once configured.
private let sharedJSONDecoder = JSONDecoder()

/// Keys sorted, so that a body's bytes do not change from one run to the next.
private let sharedJSONEncoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return encoder
}()
