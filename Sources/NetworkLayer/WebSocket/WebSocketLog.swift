import Foundation
import Synchronization

/// The log's lines after a WebSocket's handshake: one per message (`↑ text 5 bytes: hello`,
/// `↓ binary 1024 bytes`), then how it closed. Previews as for bodies: JSON with secret fields
/// redacted, the request's secret values scrubbed, control characters escaped.
final class WebSocketLog: Sendable {
    private let log: NetworkLog
    private let request: PreparedRequest
    private let ended = Atomic<Bool>(false)

    init(_ log: NetworkLog, request: PreparedRequest) {
        self.log = log
        self.request = request
    }

    func message(_ message: WebSocketMessage, outgoing: Bool) {
        let arrow = outgoing ? "↑" : "↓"
        switch message {
        case .text(let text):
            let preview = log.showsBodies && !text.isEmpty ? ": " + log.previewLine(text) : ""
            log.note("\(arrow) text \(text.utf8.count) bytes\(preview)", of: request)
        case .binary(let data):
            log.note("\(arrow) binary \(data.count) bytes", of: request)
        }
    }

    func closed(code: WebSocketCloseCode?, reason: String?) {
        guard !ended.exchange(true, ordering: .relaxed) else { return }
        let because = reason.map { $0.isEmpty ? "" : ": \($0)" } ?? ""
        log.note("WebSocket closed with \(code?.description ?? "no code")\(because)", of: request)
    }

    func failed(_ error: NetworkError, code: WebSocketCloseCode?) {
        guard !ended.exchange(true, ordering: .relaxed) else { return }
        log.note("WebSocket failed (\(code?.description ?? "no close code")): \(error.errorDescription ?? "\(error)")", of: request)
    }
}
