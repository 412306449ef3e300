import Dispatch
import Foundation

extension NetworkManager {
    /// Whether every request is logged as text, to ``logHandler`` or standard error. Default: `true`
    /// in a debug build, `false` in a release build (keeps headers and bodies out of a service's logs).
    public var isVerbose: Bool {
        get { settings.withLock { $0.isVerbose } }
        set { settings.withLock { $0.isVerbose = newValue } }
    }

    /// Receives each log text block. `nil`, the default, writes to standard error.
    public var logHandler: (@Sendable (String) -> Void)? {
        get { settings.withLock { $0.logHandler } }
        set { settings.withLock { $0.logHandler = newValue } }
    }

    /// Receives every event as a ``NetworkLogEntry``, whatever ``isVerbose`` says. Default `nil`.
    /// Called on the thread the event happens on (often libcurl's): keep it quick.
    public var logEntryHandler: (@Sendable (NetworkLogEntry) -> Void)? {
        get { settings.withLock { $0.logEntryHandler } }
        set { settings.withLock { $0.logEntryHandler = newValue } }
    }

    /// Whether FastJSON may stand in for a default `JSONDecoder`. Default `true`; `false` has
    /// Foundation decode everything. A provider can opt out alone (``ServiceProvider/usesFastJSONDecoder``).
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

    /// Record mode: when set, every live response is also written here as a mock, secret headers left out.
    public var mockRecordingDirectory: URL? {
        get { settings.withLock { $0.mockRecordingDirectory } }
        set { settings.withLock { $0.mockRecordingDirectory = newValue } }
    }

    /// Header names whose values are secrets, on top of the ones the library knows, ignoring case:
    /// `<redacted>` wherever the request is shown, and not sent to another origin on a redirect.
    public var redactedHeaderNames: Set<String> {
        get { settings.withLock { $0.redactor.names.headers } }
        set { settings.withLock { $0.redactor.names = SecretNames(headers: newValue, queryItems: $0.redactor.names.queryItems) } }
    }

    /// Query item (and JSON field) names whose values are secrets, like ``redactedHeaderNames``.
    public var redactedQueryItemNames: Set<String> {
        get { settings.withLock { $0.redactor.names.queryItems } }
        set { settings.withLock { $0.redactor.names = SecretNames(headers: $0.redactor.names.headers, queryItems: newValue) } }
    }

    /// Where ``CertificateModel`` files are read from. Default: `Certificates` in the current working directory.
    public var certificatesDirectory: URL {
        get { settings.withLock { $0.certificatesDirectory } }
        set { settings.withLock { $0.certificatesDirectoryOverride = newValue } }
    }

    /// A PEM file of CA certificates trusted instead of the system's store. Default `nil`.
    public var customCABundle: URL? {
        get { settings.withLock { $0.customCABundle } }
        set { settings.withLock { $0.customCABundle = newValue } }
    }


    /// Closes every idle kept-alive connection, of all managers (connections are shared).
    public func closeIdleConnections() {
        guard case .success(let engine) = CurlEngine.shared else { return }
        engine.closeIdleConnections()
    }

    /// Where completion handlers run. Default: a private serial queue (no run loop needed).
    public var completionQueue: DispatchQueue {
        get { settings.withLock { $0.completionQueue } }
        set { settings.withLock { $0.completionQueue = newValue } }
    }
}

extension NetworkManager {
    /// Interceptors for every request of this manager, outermost (see ``RequestInterceptor``). Default: none.
    public var interceptors: [any RequestInterceptor] {
        get { settings.withLock { $0.interceptors } }
        set { settings.withLock { $0.interceptors = newValue } }
    }

    /// Middlewares around every call of this manager, outermost (see ``RequestMiddleware``). Default: none.
    public var middlewares: [any RequestMiddleware] {
        get { settings.withLock { $0.middlewares } }
        set { settings.withLock { $0.middlewares = newValue } }
    }

    /// Middlewares around each request on the wire, never a cache hit or a mock. Default: none.
    /// What they change is signed again before it is sent.
    public var networkMiddlewares: [any RequestMiddleware] {
        get { settings.withLock { $0.networkMiddlewares } }
        set { settings.withLock { $0.networkMiddlewares = newValue } }
    }

    /// Which redirects requests follow. Default ``RedirectPolicy/follow(maximum:)`` with 10.
    public var redirectPolicy: RedirectPolicy {
        get { settings.withLock { $0.redirectPolicy } }
        set { settings.withLock { $0.redirectPolicy = newValue } }
    }
}

extension NetworkManager {
    /// The default timeouts. Default: none set. A provider's ``ServiceProvider/timeouts`` wins part
    /// by part; a request's ``BaseRequest/requestTimeout`` wins for the whole request.
    public var timeouts: Timeouts {
        get { settings.withLock { $0.timeouts } }
        set { settings.withLock { $0.timeouts = newValue } }
    }

    /// Where requests for a host connect instead, as `"host:port": "host:port"` (TLS, pins and cookies
    /// keep the name). Default: none. A malformed entry fails every request: ``NetworkError/invalidRequest(_:)``.
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

    /// How many connections the library opens and keeps, process-wide (the last setting of any manager
    /// wins). Default ``ConnectionLimits/unlimited``.
    public var connectionLimits: ConnectionLimits {
        get { CurlEngine.connectionLimits.withLock { $0 } }
        set {
            CurlEngine.connectionLimits.withLock { $0 = newValue }
            guard case .success(let engine) = CurlEngine.shared else { return }
            engine.apply(newValue)
        }
    }
}
