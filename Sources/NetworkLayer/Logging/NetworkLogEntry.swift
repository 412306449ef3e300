import Foundation

/// One event of a request's log as data, for a server's logging system to emit with metadata
/// instead of parsing text.
///
/// Set ``NetworkManager/logEntryHandler`` to receive them. A request produces, in order: a
/// ``Phase-swift.enum/request`` entry when it is sent, ``Phase-swift.enum/retry`` entries for
/// attempts that failed and are tried again, then a ``Phase-swift.enum/response`` or a
/// ``Phase-swift.enum/failure`` entry (and for a streamed response, a
/// ``Phase-swift.enum/streamEnded`` entry when its body ends). Every entry of one request carries the same
/// ``requestID``, also shown as `#n` in the text log.
///
/// The summary of each event is an ``Level-swift.enum/info`` entry (method, redacted URL,
/// status, elapsed time, byte counts, metrics, redacted headers); bodies come in a separate
/// ``Level-swift.enum/debug`` entry, so a logger at `info` never formats them; failures are
/// ``Level-swift.enum/error``, with why in ``errorCode`` and ``errorDescription``.
///
/// Everything in an entry is redacted exactly as the text log is, by the same rules: secret
/// headers and query items read `<redacted>`, secret JSON fields in body previews too, and a
/// secret value the request carries is replaced wherever else it turns up. Control characters a
/// server sent (ESC, BEL, CR, NUL, DEL, C1) are escaped (`\u{1B}`) in every text, as in the text
/// log; ``body`` keeps its tabs and line breaks.
///
/// To send entries to [swift-log](https://github.com/apple/swift-log), use `SwiftLogBridge` from
/// the opt-in product `NetworkLayerObservability`: `Net.logEntryHandler = SwiftLogBridge(logger: logger).handle`.
public struct NetworkLogEntry: Sendable, Equatable, CustomStringConvertible {
    /// Which event of a request an entry reports.
    public enum Phase: String, Sendable, CaseIterable {
        /// The request is sent (after the provider's `adapt(_:)`).
        case request
        /// A response arrived and is handed to validation.
        case response
        /// The request failed; ``NetworkLogEntry/errorDescription`` says why.
        case failure
        /// An attempt failed and the request is tried again (retry policy, or a token refresh after a 401).
        case retry
        /// Anything else worth knowing about the request (record mode could not write a mock).
        case note
        /// The body of a streamed response (``ByteStream``, ``EventStream``, ``JSONLines``) ended:
        /// ``NetworkLogEntry/message`` says how (finished, cancelled, failed) with the items and
        /// bytes it carried; ``NetworkLogEntry/bytesReceived`` and ``NetworkLogEntry/elapsed``
        /// (from the start of the request) hold the numbers. A preview of the first items comes
        /// in a ``Level-swift.enum/debug`` entry.
        case streamEnded
    }

    /// How much an entry matters, lowest first; compare them to filter (`entry.level >= .info`).
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        /// Bodies: request and response previews and the copy-as-curl command line.
        case debug
        /// The summary of an event.
        case info
        /// A failed request.
        case error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A header as logged: its name as sent or received, its value or `<redacted>`.
    public struct Header: Sendable, Equatable {
        /// The header's name.
        public let name: String
        /// The header's value, or `<redacted>` for a secret one.
        public let value: String
    }

    /// The event this entry reports.
    public let phase: Phase
    /// How much it matters: ``Level-swift.enum/debug`` for bodies, ``Level-swift.enum/info`` for
    /// summaries, ``Level-swift.enum/error`` for failures.
    public let level: Level
    /// The request's number in this process, the same for all its entries (the text log's `#n`).
    public let requestID: Int
    /// The request's method.
    public let method: HTTPMethod
    /// The request's URL with secrets redacted; for a request that failed before it had a URL,
    /// its endpoint as written, redacted the same way.
    public let url: String
    /// Whether the request was answered from a mock file.
    public let isMocked: Bool
    /// The event in one line, as the text log's first line shows it (without the `[NetworkLayer #n]` prefix).
    public let message: String
    /// The response's status (for a failure, the status of the response that caused it, if one did).
    public let statusCode: Int?
    /// The time from the start of the request to this event (responses and failures).
    public let elapsed: Duration?
    /// Bytes of request body to send (request), or sent (response, as libcurl counted them).
    public let bytesSent: Int64?
    /// Bytes of response body received, after decompression (response).
    public let bytesReceived: Int64?
    /// libcurl's timings and counters for a live response.
    public let metrics: TransferMetrics?
    /// The request's headers as sent (request) or the response's headers sorted by name (response), redacted.
    public let headers: [Header]
    /// The body preview (debug entries): pretty-printed JSON with secret fields redacted, else
    /// text, cut at 4096 characters; for uploads streamed from a file or multipart forms, what they hold.
    public let body: String?
    /// The request as a `curl` command line with secrets redacted (the request's debug entry).
    public let curlCommand: String?
    /// Why the request failed (failures; a stream that ended with an error): the error's
    /// description, with the reason in words ("The request timed out: no complete answer within
    /// the timeout of 10 s (…). (GET https://…)"), redacted like the rest. ``statusCode`` is `nil` for a failure no
    /// response caused (a timeout, a refused connection).
    public let errorDescription: String?
    /// The failed request's ``NetworkError/code`` (failures; a stream that ended with an error):
    /// `"timeOut"`, `"apiError"`…, to filter and count failures by.
    public let errorCode: String?
    /// Where the response came from when the manager has a response cache (response entries):
    /// ``CacheStatus/hit``, ``CacheStatus/revalidated``, ``CacheStatus/miss`` or
    /// ``CacheStatus/stale``, as the text log's `[HIT]` mark says; `nil` without a cache, and
    /// for other phases.
    public let cacheStatus: CacheStatus?

    init(phase: Phase, level: Level, requestID: Int, method: HTTPMethod, url: String, isMocked: Bool, message: String,
         statusCode: Int? = nil, elapsed: Duration? = nil, bytesSent: Int64? = nil, bytesReceived: Int64? = nil,
         metrics: TransferMetrics? = nil, headers: [Header] = [], body: String? = nil, curlCommand: String? = nil,
         errorDescription: String? = nil, errorCode: String? = nil, cacheStatus: CacheStatus? = nil) {
        self.phase = phase
        self.level = level
        self.requestID = requestID
        self.method = method
        self.url = url
        self.isMocked = isMocked
        self.message = message
        self.statusCode = statusCode
        self.elapsed = elapsed
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.metrics = metrics
        self.headers = headers
        self.body = body
        self.curlCommand = curlCommand
        self.errorDescription = errorDescription
        self.errorCode = errorCode
        self.cacheStatus = cacheStatus
    }

    /// `[NetworkLayer #n] ` and the ``message``.
    public var description: String { "[NetworkLayer #\(requestID)] \(message)" }
}
