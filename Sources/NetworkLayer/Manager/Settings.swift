import Dispatch
import Foundation

/// The manager's configuration, copied by each request when it starts.
///
/// The values live in an immutable box, so that copying the settings for a request is one
/// retain, not a copy of every field with a retain per reference (~1 k instructions per
/// request); changing a setting (rare) makes a new box.
struct Settings: Sendable {
    /// The fields, with their defaults.
    struct Values: Sendable {
        var isVerbose = true
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
    }

    /// Never mutated: a change makes a new one, so a request's copy never sees a later change.
    private final class Box: Sendable {
        let values: Values
        init(_ values: Values) { self.values = values }
    }

    private var box = Box(Values())

    private mutating func update(_ change: (inout Values) -> Void) {
        var values = box.values
        change(&values)
        box = Box(values)
    }

    var isVerbose: Bool {
        get { box.values.isVerbose }
        set { update { $0.isVerbose = newValue } }
    }

    var logHandler: (@Sendable (String) -> Void)? {
        get { box.values.logHandler }
        set { update { $0.logHandler = newValue } }
    }

    var logEntryHandler: (@Sendable (NetworkLogEntry) -> Void)? {
        get { box.values.logEntryHandler }
        set { update { $0.logEntryHandler = newValue } }
    }

    var areMocksEnabled: Bool {
        get { box.values.areMocksEnabled }
        set { update { $0.areMocksEnabled = newValue } }
    }

    var mockResponsesDirectoryOverride: URL? {
        get { box.values.mockResponsesDirectoryOverride }
        set { update { $0.mockResponsesDirectoryOverride = newValue } }
    }

    var mockRecordingDirectory: URL? {
        get { box.values.mockRecordingDirectory }
        set { update { $0.mockRecordingDirectory = newValue } }
    }

    var redactor: Redactor {
        get { box.values.redactor }
        set { update { $0.redactor = newValue } }
    }

    var certificatesDirectoryOverride: URL? {
        get { box.values.certificatesDirectoryOverride }
        set { update { $0.certificatesDirectoryOverride = newValue } }
    }

    var customCABundle: URL? {
        get { box.values.customCABundle }
        set { update { $0.customCABundle = newValue } }
    }

    var maximumResponseSize: Int? {
        get { box.values.maximumResponseSize }
        set { update { $0.maximumResponseSize = newValue } }
    }

    var decompressionLimit: DecompressionLimit {
        get { box.values.decompressionLimit }
        set { update { $0.decompressionLimit = newValue } }
    }

    var usesFastJSONDecoder: Bool {
        get { box.values.usesFastJSONDecoder }
        set { update { $0.usesFastJSONDecoder = newValue } }
    }

    var completionQueue: DispatchQueue {
        get { box.values.completionQueue }
        set { update { $0.completionQueue = newValue } }
    }

    var pinning: PinningConfiguration? {
        get { box.values.pinning }
        set { update { $0.pinning = newValue } }
    }

    var tlsBackendProblem: String? {
        get { box.values.tlsBackendProblem }
        set { update { $0.tlsBackendProblem = newValue } }
    }

    var proxy: ProxyConfiguration {
        get { box.values.proxy }
        set { update { $0.proxy = newValue } }
    }

    var cookieStorage: CookieStorage {
        get { box.values.cookieStorage }
        set { update { $0.cookieStorage = newValue } }
    }

    var cookieJar: CookieJar? {
        get { box.values.cookieJar }
        set { update { $0.cookieJar = newValue } }
    }

    /// `MockResponses` in the current working directory unless set.
    var mockResponsesDirectory: URL {
        mockResponsesDirectoryOverride ?? URL(fileURLWithPath: "MockResponses", isDirectory: true)
    }

    /// `Certificates` in the current working directory unless set.
    var certificatesDirectory: URL {
        certificatesDirectoryOverride ?? URL(fileURLWithPath: "Certificates", isDirectory: true)
    }

    var transferOptions: TransferOptions {
        TransferOptions(customCABundle: customCABundle, pinning: pinning?.isEnabled == true ? pinning : nil,
                        tlsBackendProblem: tlsBackendProblem)
    }

    /// Where log entries go: the handler, or standard error.
    var logSink: @Sendable (String) -> Void {
        logHandler ?? { text in FileHandle.standardError.write(Data(text.utf8)) }
    }
}
