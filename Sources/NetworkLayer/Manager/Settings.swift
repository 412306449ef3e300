import Dispatch
import Foundation

/// The manager's configuration, copied by each request when it starts.
/// The values live in an immutable box, so a request's copy is one retain; a change makes a new box.
@dynamicMemberLookup
struct Settings: Sendable {
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
        var usesFastJSONDecoder = true
        var completionQueue = DispatchQueue(label: "NetworkLayer.completion")
        var pinning: PinningConfiguration?
        /// Why pins cannot be checked (``TLSBackendCheck``): a setting so a test can exercise failing closed.
        var tlsBackendProblem = TLSBackendCheck.problem
        var cookieStorage = CookieStorage.none
        /// The store for ``cookieStorage``; `nil` for `.none`.
        var cookieJar: CookieJar?
        var interceptors: [any RequestInterceptor] = []
        var middlewares: [any RequestMiddleware] = []
        var networkMiddlewares: [any RequestMiddleware] = []
        var redirectPolicy = RedirectPolicy.follow()
        var timeouts = Timeouts()
        /// As the user set them, and checked (`nil` when empty).
        var hostOverrideNames: [String: String] = [:]
        var hostOverrides: HostOverrides?
        var responseCache = ResponseCache.none
        /// The cache for ``responseCache``; `nil` for `.none`.
        var responseCacheStore: ResponseCacheStore?
        /// The settings of `Manager/Settings.toml`.
        var table = Table()
        var recordsTraffic = false
        /// The manager's recorded traffic, kept whether or not it records now.
        var recordedTraffic = RecordedTraffic()
        var webSocketOptions = WebSocketOptions()
        var maximumRequestsPerOrigin: OriginLimit?
        /// The queues of ``maximumRequestsPerOrigin`` and of providers' limits: one per manager,
        /// kept across changes of its settings.
        var originQueues = OriginQueues()
        /// The manager's event subscriptions while it has one, else `nil` (``CallEventHub``).
        var eventHub: CallEventHub?
    }

    /// Never mutated: a change makes a new one, so a request's copy never sees a later change.
    private final class Box: Sendable {
        let values: Values
        init(_ values: Values) { self.values = values }
    }

    private var box = Box(Values())

    /// ``NetworkManager/isVerbose``'s default; SwiftPM builds dependencies in the app's configuration.
    static let isVerboseByDefault: Bool = {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }()

    subscript<Value>(dynamicMember field: WritableKeyPath<Values, Value>) -> Value {
        get { box.values[keyPath: field] }
        set {
            var values = box.values
            values[keyPath: field] = newValue
            box = Box(values)
        }
    }

    var mockResponsesDirectory: URL {
        box.values.mockResponsesDirectoryOverride ?? URL(fileURLWithPath: "MockResponses", isDirectory: true)
    }

    var certificatesDirectory: URL {
        box.values.certificatesDirectoryOverride ?? URL(fileURLWithPath: "Certificates", isDirectory: true)
    }

    /// The transfer options of one request: the manager's, with what the request and provider decided.
    func transferOptions(connectTimeout: TimeInterval?, idleTimeout: TimeInterval?, unixSocketPath: String?,
                         clientCertificate: ClientCertificate?, tls: TLSOptions?, table: Table) -> TransferOptions {
        let values = box.values
        return TransferOptions(customCABundle: values.customCABundle, pinning: values.pinning?.isEnabled == true ? values.pinning : nil,
                               tlsBackendProblem: values.tlsBackendProblem, connectTimeout: connectTimeout, idleTimeout: idleTimeout,
                               hostOverrides: values.hostOverrides, unixSocketPath: unixSocketPath, cookieJar: values.cookieJar,
                               clientCertificate: clientCertificate, tls: tls, table: table)
    }

    var logSink: @Sendable (String) -> Void {
        box.values.logHandler ?? { text in FileHandle.standardError.write(Data(text.utf8)) }
    }
}
