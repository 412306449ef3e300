import Dispatch
import Foundation

extension NetworkManager {
    /// Whether every request is logged as text: to ``logHandler``, or to standard error without one.
    ///
    /// Default: `true` in a debug build, `false` in a release build. The library follows the app's
    /// build configuration (`#if DEBUG`: SwiftPM builds a package's dependencies in the root
    /// package's configuration, so `swift build` logs and `swift build -c release` does not),
    /// which keeps the original design's verbose log while developing and keeps a Linux service's
    /// request headers and bodies out of journald. Set it to have the log either way:
    ///
    /// ```swift
    /// Net.isVerbose = true   // also in a release build
    /// ```
    ///
    /// When off, no log text is built at all. ``logEntryHandler`` works independently of it.
    public var isVerbose: Bool {
        get { settings.withLock { $0.isVerbose } }
        set { settings.withLock { $0.isVerbose = newValue } }
    }

    /// Receives each log entry (one block per request event). `nil`, the default, writes to standard error.
    public var logHandler: (@Sendable (String) -> Void)? {
        get { settings.withLock { $0.logHandler } }
        set { settings.withLock { $0.logHandler = newValue } }
    }

    /// Receives every event of every request as a structured ``NetworkLogEntry`` (method,
    /// redacted URL, status, timings, byte counts, redacted headers, a level), for a server's
    /// logging system. Default `nil`.
    ///
    /// It works beside the text log and independently of ``isVerbose``, which turns only the
    /// text off: set `isVerbose = false` to get entries without text on standard error. When
    /// both are off, nothing is formatted at all. The handler is called on the thread the event
    /// happens on (often libcurl's): keep it quick, and hand slow work elsewhere.
    ///
    /// ```swift
    /// Net.isVerbose = false
    /// Net.logEntryHandler = { entry in
    ///     guard entry.level >= .info else { return }  // no bodies
    ///     print(entry.level, entry.phase, entry.method.rawValue, entry.url, entry.statusCode ?? "-")
    /// }
    /// ```
    public var logEntryHandler: (@Sendable (NetworkLogEntry) -> Void)? {
        get { settings.withLock { $0.logEntryHandler } }
        set { settings.withLock { $0.logEntryHandler = newValue } }
    }

    /// Whether JSON responses may be decoded by the library's own decoder, FastJSON. Default `true`.
    ///
    /// FastJSON gives the same values and the same errors as a default `JSONDecoder` (it is
    /// checked against the installed Foundation), several times faster and never with more
    /// memory; it is used only where the decoder in use is a `JSONDecoder` with every option at
    /// its default, and Foundation's decoder does everything else. Set `false` to have Foundation's
    /// `JSONDecoder` decode every response of this manager, for instance to rule the library's
    /// decoder out while investigating, or so that decoding follows the installed Foundation
    /// exactly whatever the library's decoder does. A provider can opt out for its responses
    /// alone (``ServiceProvider/usesFastJSONDecoder``). Read when a request starts.
    ///
    /// ```swift
    /// Net.usesFastJSONDecoder = false
    /// ```
    public var usesFastJSONDecoder: Bool {
        get { settings.withLock { $0.usesFastJSONDecoder } }
        set { settings.withLock { $0.usesFastJSONDecoder = newValue } }
    }

    /// Whether requests are answered from mock files instead of the network. Default `false`.
    public var areMocksEnabled: Bool {
        get { settings.withLock { $0.areMocksEnabled } }
        set { settings.withLock { $0.areMocksEnabled = newValue } }
    }

    /// Where mock files are read from. Default: `MockResponses` in the current working directory.
    public var mockResponsesDirectory: URL {
        get { settings.withLock { $0.mockResponsesDirectory } }
        set { settings.withLock { $0.mockResponsesDirectoryOverride = newValue } }
    }

    /// Record mode: when set, every live response is also written to this directory as a mock
    /// (body file plus `.meta.json` sidecar with status and headers, secret headers left out),
    /// named like the mock that would answer the request. Default `nil`.
    public var mockRecordingDirectory: URL? {
        get { settings.withLock { $0.mockRecordingDirectory } }
        set { settings.withLock { $0.mockRecordingDirectory = newValue } }
    }

    /// Header names whose values are secrets in every request of this manager, on top of the
    /// ones the library knows (what ``Authentication`` adds, the provider's and the request's
    /// ``ServiceProvider/secretHeaderNames``, and names that look secret: `Authorization`,
    /// `Cookie`, `X-API-Key`, names containing `token`, `secret`, `auth`…). Compared ignoring case.
    ///
    /// A secret header's value reads `<redacted>` in the log, in error descriptions, in
    /// copy-as-curl and in recorded mock sidecars, and the header is not sent to another origin
    /// when a server redirects there. Default: empty.
    ///
    /// ```swift
    /// Net.redactedHeaderNames = ["X-Tenant-Signature"]
    /// ```
    public var redactedHeaderNames: Set<String> {
        get { settings.withLock { $0.redactor.names.headers } }
        set { settings.withLock { $0.redactor.names = SecretNames(headers: newValue, queryItems: $0.redactor.names.queryItems) } }
    }

    /// Query item (and JSON field) names whose values are secrets in every request of this
    /// manager, on top of the ones the library knows (an API key ``Authentication`` puts in the
    /// query, the provider's and the request's ``ServiceProvider/secretQueryItemNames``, and
    /// names that look secret: `token`, `access_token`, `api_key`, `password`…). Compared
    /// ignoring case. Their values read `<redacted>` wherever the request is shown. Default: empty.
    public var redactedQueryItemNames: Set<String> {
        get { settings.withLock { $0.redactor.names.queryItems } }
        set { settings.withLock { $0.redactor.names = SecretNames(headers: $0.redactor.names.headers, queryItems: newValue) } }
    }

    /// Where ``CertificateModel`` files are read from. Default: `Certificates` in the current working directory.
    public var certificatesDirectory: URL {
        get { settings.withLock { $0.certificatesDirectory } }
        set { settings.withLock { $0.certificatesDirectoryOverride = newValue } }
    }

    /// A PEM file of CA certificates trusted instead of the system's store (a private or test CA).
    /// `nil`, the default, uses the system store.
    public var customCABundle: URL? {
        get { settings.withLock { $0.customCABundle } }
        set { settings.withLock { $0.customCABundle = newValue } }
    }

    /// How far a compressed response may expand when libcurl decodes it, the guard against
    /// decompression bombs. Default ``DecompressionLimit/standard`` (a ratio of 100 above 16 MiB);
    /// a request's `decompressionLimit` overrides it. A response beyond it fails with
    /// ``NetworkError/transport(_:)``.
    public var decompressionLimit: DecompressionLimit {
        get { settings.withLock { $0.decompressionLimit } }
        set { settings.withLock { $0.decompressionLimit = newValue } }
    }

    /// The largest response body accepted, in bytes, counted after decompression (so a small
    /// gzip bomb cannot fill memory); a larger body fails with ``NetworkError/transport(_:)``. A
    /// request's `maximumResponseSize` overrides it. Default `nil`: no limit. Negative values are
    /// refused with ``NetworkError/invalidRequest(_:)`` when a request starts.
    public var maximumResponseSize: Int? {
        get { settings.withLock { $0.maximumResponseSize } }
        set { settings.withLock { $0.maximumResponseSize = newValue } }
    }

    /// Closes every kept-alive connection no request is using; running requests keep theirs
    /// until they end, then those close too. New requests open fresh connections.
    ///
    /// Connections are shared by all managers, so this affects them all. Useful after a network
    /// change, or to return a process's file descriptors to their baseline.
    public func closeIdleConnections() {
        guard case .success(let engine) = CurlEngine.shared else { return }
        engine.closeIdleConnections()
    }

    /// Where completion handlers run. Default: a private serial queue, which needs no run loop.
    /// Set it to `.main` to get completions on the main thread of an app.
    public var completionQueue: DispatchQueue {
        get { settings.withLock { $0.completionQueue } }
        set { settings.withLock { $0.completionQueue = newValue } }
    }
}

extension NetworkManager {
    /// Interceptors for every request of this manager: outermost, adapting each attempt first and
    /// asked last whether to retry. Default: none. Read when a request starts.
    ///
    /// ```swift
    /// Net.interceptors = [Metrics()]
    /// ```
    ///
    /// See ``RequestInterceptor`` for the order of all interceptors and the library's own links.
    public var interceptors: [any RequestInterceptor] {
        get { settings.withLock { $0.interceptors } }
        set { settings.withLock { $0.interceptors = newValue } }
    }

    /// Middlewares around every call of this manager: outermost, before the provider's and the
    /// request's. Each runs once per call, around mocks, the cache, retries and redirects.
    /// Default: none. Read when a request starts.
    ///
    /// ```swift
    /// Net.middlewares = [Timing()]
    /// ```
    ///
    /// See ``RequestMiddleware``.
    public var middlewares: [any RequestMiddleware] {
        get { settings.withLock { $0.middlewares } }
        set { settings.withLock { $0.middlewares = newValue } }
    }

    /// Middlewares around each request that goes on the wire: every attempt and every hop of a
    /// redirect, a cache's revalidation too; never a cache hit or a mock. Default: none. Read
    /// when a request starts.
    ///
    /// ```swift
    /// Net.networkMiddlewares = [Timing()]   // once per request on the wire
    /// ```
    public var networkMiddlewares: [any RequestMiddleware] {
        get { settings.withLock { $0.networkMiddlewares } }
        set { settings.withLock { $0.networkMiddlewares = newValue } }
    }

    /// Which redirects requests follow, unless their provider or the request says otherwise.
    /// Default ``RedirectPolicy/follow(maximum:)`` with 10.
    public var redirectPolicy: RedirectPolicy {
        get { settings.withLock { $0.redirectPolicy } }
        set { settings.withLock { $0.redirectPolicy = newValue } }
    }
}

extension NetworkManager {
    /// The default timeouts of this manager's requests: connect, the whole request, idle.
    /// Default: none set (libcurl's 300 s to connect, 60 s for the request, no idle limit).
    ///
    /// A provider's ``ServiceProvider/timeouts`` wins part by part, and a request's own
    /// ``BaseRequest/timeout``, when set, wins for the whole request. Read when a request starts.
    ///
    /// ```swift
    /// Net.timeouts = Timeouts(connect: 5, request: 60, idle: 20)
    /// ```
    public var timeouts: Timeouts {
        get { settings.withLock { $0.timeouts } }
        set { settings.withLock { $0.timeouts = newValue } }
    }

    /// The HTTP version requests speak unless their provider says otherwise
    /// (``ServiceProvider/httpVersion``). Default ``HTTPVersion/automatic``.
    public var httpVersion: HTTPVersion {
        get { settings.withLock { $0.httpVersion } }
        set { settings.withLock { $0.httpVersion = newValue } }
    }

    /// Where requests for a host connect instead, as `"host:port": "host:port"`: the URL, the `Host`
    /// header, TLS (the name sent and the certificate checked), pins and cookies keep the name;
    /// only the address connected to changes (curl's `--connect-to`). For blue/green switches,
    /// tests against a staging address, split DNS. Default: none.
    ///
    /// ```swift
    /// Net.hostOverrides = ["api.example.com:443": "10.0.0.7:8443"]
    /// ```
    ///
    /// A name or a port that is not `host:port` (a name or an IP address, IPv6 in brackets, a port
    /// in 1...65535) fails every request with ``NetworkError/invalidRequest(_:)`` until it is
    /// corrected. The log shows both the name and the address.
    public var hostOverrides: [String: String] {
        get { settings.withLock { $0.hostOverrideNames } }
        set {
            let checked = newValue.isEmpty ? nil : HostOverrides(newValue)
            settings.withLock {
                $0.hostOverrideNames = newValue
                $0.hostOverrides = checked
            }
        }
    }

    /// How many connections the library opens and keeps: per host, in all, and for how long an
    /// unused one stays open. Default ``ConnectionLimits/unlimited``.
    ///
    /// Connections are shared by every manager in the process, so the limits are too: setting
    /// them here applies to all managers (the last setting wins).
    ///
    /// ```swift
    /// Net.connectionLimits = ConnectionLimits(perHost: 8, total: 64, idleTimeout: 90)
    /// ```
    public var connectionLimits: ConnectionLimits {
        get { CurlEngine.connectionLimits.withLock { $0 } }
        set {
            CurlEngine.connectionLimits.withLock { $0 = newValue }
            guard case .success(let engine) = CurlEngine.shared else { return }
            engine.apply(newValue)
        }
    }
}
