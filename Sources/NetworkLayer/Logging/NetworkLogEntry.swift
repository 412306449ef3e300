import Foundation

/// One event of a request's log as data, for a server's logging system to emit with metadata
/// instead of parsing text.
///
/// Set ``NetworkManager/logEntryHandler`` to receive them. A request produces a
/// ``Phase-swift.enum/request`` entry, ``Phase-swift.enum/retry`` entries, then a
/// ``Phase-swift.enum/response`` or ``Phase-swift.enum/failure`` entry (and a
/// ``Phase-swift.enum/streamEnded`` entry when a stream's body ends), all with one ``requestID``.
/// Bodies come in separate ``Level-swift.enum/debug`` entries, so a logger at `info` never
/// formats them.
///
/// Everything in an entry is redacted exactly as the text log is, and control characters a server
/// sent are escaped in every text (``body`` keeps its tabs and line breaks).
public struct NetworkLogEntry: Sendable, Equatable, CustomStringConvertible {
    /// Which event of a request an entry reports.
    public enum Phase: String, Sendable, CaseIterable {
        case request
        case response
        /// The request failed; ``NetworkLogEntry/errorDescription`` says why.
        case failure
        /// An attempt failed and the request is tried again (retry policy, or a token refresh after a 401).
        case retry
        /// Anything else worth knowing about the request (record mode could not write a mock).
        case note
        /// The body of a streamed response ended: ``NetworkLogEntry/message`` says how, with the items
        /// and bytes it carried.
        case streamEnded
    }

    /// How much an entry matters, lowest first; compare them to filter (`entry.level >= .info`).
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug
        case info
        case error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A header as logged: its name as sent or received, its value or `<redacted>`.
    public struct Header: Sendable, Equatable {
        public let name: String
        /// Its value, or `<redacted>` for a secret one.
        public let value: String
    }

    public let phase: Phase
    /// ``Level-swift.enum/debug`` for bodies, ``Level-swift.enum/info`` for summaries, ``Level-swift.enum/error`` for failures.
    public let level: Level
    /// The request's number in this process, the same for all its entries (the text log's `#n`).
    public let requestID: Int
    public let method: HTTPMethod
    /// The request's URL with secrets redacted (its endpoint, when it failed before it had a URL).
    public let url: String
    /// Whether the request was answered from a mock file.
    public let isMocked: Bool
    /// The event in one line, as the text log shows it (without the `[NetworkLayer #n]` prefix).
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
    /// The body preview (debug entries): JSON pretty-printed with secret fields redacted, else text,
    /// cut at 4096 characters.
    public let body: String?
    /// The request as a `curl` command line with secrets redacted (the request's debug entry).
    public let curlCommand: String?
    /// Why the request failed (failures; a stream that ended with an error), redacted like the rest.
    /// ``statusCode`` is `nil` for a failure no response caused.
    public let errorDescription: String?
    /// The failed request's ``NetworkError/code``, to filter and count failures by.
    public let errorCode: String?
    /// Where the response came from when the manager has a response cache (response entries only).
    public let cacheStatus: CacheStatus?
    /// The request's ``BaseRequest/operationID``, control characters escaped; `nil` when it names none.
    public internal(set) var operationID: String?

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

    /// `[NetworkLayer #n] ` (`[NetworkLayer #n getGreeting] ` with an ``operationID``) and the ``message``.
    public var description: String { "[NetworkLayer #\(requestID)\(operationID.map { " \($0)" } ?? "")] \(message)" }
}
