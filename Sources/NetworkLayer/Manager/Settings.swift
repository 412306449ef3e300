import Dispatch
import Foundation

/// The manager's configuration, copied by each request when it starts.
///
/// The values live in an immutable box, so that copying the settings for a request is one
/// retain, not a copy of every field with a retain per reference (~1 k instructions per
/// request); changing a setting (rare) makes a new box.
@dynamicMemberLookup
struct Settings: Sendable {
    /// The fields, with their defaults.
    struct Values: Sendable {
        var isVerbose = Settings.isVerboseByDefault
        var logHandler: (@Sendable (String) -> Void)?
        var logEntryHandler: (@Sendable (NetworkLogEntry) -> Void)?
        var areMocksEnabled = false
        var mockResponsesDirectoryOverride: URL?
        var mockRecordingDirectory: URL?
        var redactor = Redactor()
        var certificatesDirectoryOverride: URL?
        var customCABundle: URL?
        var maximumResponseSize: Int?
        var decompressionLimit = DecompressionLimit.standard
        var usesFastJSONDecoder = true
        var completionQueue = DispatchQueue(label: "NetworkLayer.completion")
        var pinning: PinningConfiguration?
        /// Why pins cannot be checked in this process (``TLSBackendCheck``), or `nil`. A setting only
        /// so that a test can exercise the fail-closed path on one manager of its own.
        var tlsBackendProblem = TLSBackendCheck.problem
        var proxy = ProxyConfiguration.environment
        var cookieStorage = CookieStorage.none
        /// The store for ``cookieStorage``; `nil` for `.none`.
        var cookieJar: CookieJar?
        var interceptors: [any RequestInterceptor] = []
        var middlewares: [any RequestMiddleware] = []
        var networkMiddlewares: [any RequestMiddleware] = []
        var redirectPolicy = RedirectPolicy.follow()
        var timeouts = Timeouts()
        var httpVersion = HTTPVersion.automatic
        var keepAlive: KeepAlive? = .standard
        /// As the user set them, and checked (`nil` when empty).
        var hostOverrideNames: [String: String] = [:]
        var hostOverrides: HostOverrides?
        var responseCache = ResponseCache.none
        /// The cache for ``responseCache``; `nil` for `.none`.
        var responseCacheStore: ResponseCacheStore?
        /// ``NetworkManager/ipFamily`` and the other connection settings.
        var connecting = ConnectOptions()
        var recordsTraffic = false
        /// The manager's recorded traffic, kept whether or not it records now.
        var recordedTraffic = RecordedTraffic()
        var webSocketOptions = WebSocketOptions()
    }

    /// Never mutated: a change makes a new one, so a request's copy never sees a later change.
    private final class Box: Sendable {
        let values: Values
        init(_ values: Values) { self.values = values }
    }

    private var box = Box(Values())

    /// ``NetworkManager/isVerbose``'s default: `true` in a debug build, `false` in a release build.
    ///
    /// SwiftPM defines `DEBUG` when it builds in the debug configuration, and builds a package's
    /// dependencies in the root package's configuration, so this follows the app's build: the log
    /// is on while developing, and a release build (a Linux service) writes no bodies to standard
    /// error unless asked.
    static let isVerboseByDefault: Bool = {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }()

    /// Each field of ``Values``, read from the box; setting one makes a new box.
    subscript<Value>(dynamicMember field: WritableKeyPath<Values, Value>) -> Value {
        get { box.values[keyPath: field] }
        set {
            var values = box.values
            values[keyPath: field] = newValue
            box = Box(values)
        }
    }

    /// `MockResponses` in the current working directory unless set.
    var mockResponsesDirectory: URL {
        box.values.mockResponsesDirectoryOverride ?? URL(fileURLWithPath: "MockResponses", isDirectory: true)
    }

    /// `Certificates` in the current working directory unless set.
    var certificatesDirectory: URL {
        box.values.certificatesDirectoryOverride ?? URL(fileURLWithPath: "Certificates", isDirectory: true)
    }

    /// The transfer options of one request: the manager's, with what the request and its
    /// provider decided.
    func transferOptions(maximumResponseSize: Int?, decompressionLimit: DecompressionLimit, connectTimeout: TimeInterval?,
                         idleTimeout: TimeInterval?, httpVersion: HTTPVersion, unixSocketPath: String?,
                         proxy: ProxyConfiguration, clientCertificate: ClientCertificate?,
                         keepAlive: KeepAlive?, tls: TLSOptions?, connecting: ConnectOptions) -> TransferOptions {
        let values = box.values
        return TransferOptions(customCABundle: values.customCABundle, pinning: values.pinning?.isEnabled == true ? values.pinning : nil,
                               tlsBackendProblem: values.tlsBackendProblem, maximumResponseSize: maximumResponseSize,
                               decompressionLimit: decompressionLimit, connectTimeout: connectTimeout, idleTimeout: idleTimeout,
                               httpVersion: httpVersion, hostOverrides: values.hostOverrides, unixSocketPath: unixSocketPath,
                               proxy: proxy, cookieJar: values.cookieJar, clientCertificate: clientCertificate, keepAlive: keepAlive,
                               tls: tls, connecting: connecting)
    }

    /// Where log entries go: the handler, or standard error.
    var logSink: @Sendable (String) -> Void {
        box.values.logHandler ?? { text in FileHandle.standardError.write(Data(text.utf8)) }
    }
}
