import Dispatch
import Foundation

/// The manager's configuration, copied by each request when it starts.
struct Settings: Sendable {
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
