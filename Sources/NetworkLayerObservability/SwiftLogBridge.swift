#if Observability
import Logging
import NetworkLayer

/// Sends NetworkLayer's structured log to swift-log: one log line per ``NetworkLogEntry``.
///
/// Levels: an entry's own (``NetworkLogEntry/Level``): bodies and the copy-as-curl line at
/// `debug`, requests, responses, retries and notes at `info`, failures at `error`. The message is
/// the entry's one-line summary. Metadata, each present only when the entry has it:
///
/// | Key | Value |
/// |---|---|
/// | `networklayer.request_id` | the request's number in this process |
/// | `networklayer.phase` | `request`, `response`, `failure`, `retry`, `note`, `streamEnded` |
/// | `http.request.method` | the method |
/// | `url.full` | the URL, secret query values redacted |
/// | `http.response.status_code` | the status |
/// | `networklayer.elapsed_ms` | milliseconds since the request started |
/// | `networklayer.bytes_sent`, `networklayer.bytes_received` | byte counts |
/// | `networklayer.mocked` | `true` for a mocked request |
/// | `networklayer.cache.status` | `hit`, `miss`, `revalidated`, `stale` |
/// | `error.message` | what failed, for a failure |
/// | `networklayer.body` | a body's preview (debug entries) |
/// | `networklayer.curl` | the copy-as-curl command (debug entries) |
///
/// Every value is the entry's: secrets redacted, a server's control characters escaped. The log
/// source is `NetworkLayer`.
public struct SwiftLogBridge: Sendable {
    public let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// Logs `entry`; pass it as ``NetworkManager/logEntryHandler``.
    @Sendable public func handle(_ entry: NetworkLogEntry) {
        logger.log(level: Self.level(entry.level), "\(entry.message)", metadata: Self.metadata(entry), source: "NetworkLayer")
    }

    static func level(_ level: NetworkLogEntry.Level) -> Logger.Level {
        switch level {
        case .debug: .debug
        case .info: .info
        case .error: .error
        }
    }

    static func metadata(_ entry: NetworkLogEntry) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "networklayer.request_id": "\(entry.requestID)",
            "networklayer.phase": "\(entry.phase.rawValue)",
            "http.request.method": "\(entry.method.rawValue)",
            "url.full": "\(entry.url)",
        ]
        if let status = entry.statusCode { metadata["http.response.status_code"] = "\(status)" }
        if let elapsed = entry.elapsed {
            let components = elapsed.components
            metadata["networklayer.elapsed_ms"] = "\(components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000)"
        }
        if let sent = entry.bytesSent { metadata["networklayer.bytes_sent"] = "\(sent)" }
        if let received = entry.bytesReceived { metadata["networklayer.bytes_received"] = "\(received)" }
        if entry.isMocked { metadata["networklayer.mocked"] = "true" }
        if let cache = entry.cacheStatus { metadata["networklayer.cache.status"] = "\(HTTPConventions.cacheStatus(cache))" }
        if let error = entry.errorDescription { metadata["error.message"] = "\(error)" }
        if let body = entry.body { metadata["networklayer.body"] = "\(body)" }
        if let curl = entry.curlCommand { metadata["networklayer.curl"] = "\(curl)" }
        return metadata
    }
}
#endif
