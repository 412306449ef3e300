import Logging
import NetworkLayer

extension Logger {
    /// Receives every NetworkLayer log entry as a log line with metadata: bodies at `debug`,
    /// summaries at `info`, failures at `error`, every value redacted as in the text log.
    func receiveNetworkLog(from manager: NetworkManager = Net) {
        manager.logEntryHandler = { entry in
            var metadata: Metadata = ["request": "\(entry.requestID)", "phase": "\(entry.phase.rawValue)",
                                      "method": "\(entry.method.rawValue)", "url": "\(entry.url)"]
            if let status = entry.statusCode { metadata["status"] = "\(status)" }
            if let elapsed = entry.elapsed { metadata["elapsed"] = "\(elapsed)" }
            if let bytes = entry.bytesReceived { metadata["bytes_received"] = "\(bytes)" }
            if let body = entry.body { metadata["body"] = "\(body)" }
            let level: Level = switch entry.level { case .debug: .debug; case .info: .info; case .error: .error }
            log(level: level, "\(entry.message)", metadata: metadata)
        }
    }
}
