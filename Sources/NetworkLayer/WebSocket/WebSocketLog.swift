import Foundation

/// The log's lines after a WebSocket's handshake: one per message (`↑ text 5 bytes: hello`,
/// `↓ binary 1024 bytes`), then how it ended (who closed, the code, the reason). Previews as for
/// bodies: JSON with secret fields redacted, the request's secret values scrubbed, control
/// characters escaped.
final class WebSocketLog: Sendable {
    private let log: NetworkLog
    private let request: PreparedRequest

    private struct State {
        var handshakeLogged = false
        var ended = false
        /// The end's line, held back until the handshake's answer is in the log (a server that
        /// closes at once closes before the pipeline logs the 101).
        var pendingEnd: String?
    }
    private let state = Protected(State())

    init(_ log: NetworkLog, request: PreparedRequest) {
        self.log = log
        self.request = request
    }

    deinit {
        // A 101 that was never logged (a middleware answered instead): the end is not lost.
        if let line = state.withLock({ $0.pendingEnd }) { log.note(line, of: request) }
    }

    /// The handshake's answer is in the log: the end's line, if it came first, follows it now.
    func handshakeLogged() {
        let pending = state.withLock { state -> String? in
            state.handshakeLogged = true
            defer { state.pendingEnd = nil }
            return state.pendingEnd
        }
        if let pending { log.note(pending, of: request) }
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

    /// The socket ended (`end`), after `closing` started its close handshake (if one did) and
    /// with `status` its close status; the first call writes the line:
    ///
    ///     WebSocket closed by the client with 1000 (normal closure), reason "bye"
    ///     WebSocket closed by the server with 4001, reason "over and out"
    ///     WebSocket closed by the client with 1001 (going away): its last reference was dropped
    ///     WebSocket failed (closed by the client with 1009 (message too big)): The transfer failed: …
    ///     WebSocket failed (without a close handshake): The transfer failed: …
    func ended(_ end: WebSocketInbox.End, closing: WebSocketClosing?, status: (code: WebSocketCloseCode, reason: String)?) {
        let line = Self.line(end, closing: closing, status: status)
        let writesNow = state.withLock { state -> Bool in
            guard !state.ended else { return false }
            state.ended = true
            if !state.handshakeLogged { state.pendingEnd = line }
            return state.handshakeLogged
        }
        if writesNow { log.note(line, of: request) }
    }

    private static func line(_ end: WebSocketInbox.End, closing: WebSocketClosing?, status: (code: WebSocketCloseCode, reason: String)?) -> String {
        switch end {
        case .closed:
            guard let closing else { return "WebSocket closed with \(status?.code.description ?? "no code")\(reason(status?.reason ?? ""))" }
            var line = "WebSocket closed by the \(closing.side) with \(closing.code)\(reason(closing.reason))"
            if let cause = closing.cause { line += ": \(cause)" }
            if closing.side == .client, let answer = status?.code, answer != closing.code {
                line += "; the server answered \(answer)"
            }
            return line
        case .failed(let error):
            let how = closing.map { "closed by the \($0.side) with \($0.code)\(reason($0.reason))" } ?? "without a close handshake"
            return "WebSocket failed (\(how)): \(error.errorDescription ?? "\(error)")"
        }
    }

    /// `, reason "…"` with quotes and backslashes escaped (the log escapes control characters),
    /// or nothing for an empty reason.
    private static func reason(_ reason: String) -> String {
        guard !reason.isEmpty else { return "" }
        return ", reason \"" + reason.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// Who started a socket's close handshake, with what, and why (for the log).
struct WebSocketClosing: Sendable {
    enum Side: String, Sendable, CustomStringConvertible {
        case client
        case server

        var description: String { rawValue }
    }

    let side: Side
    let code: WebSocketCloseCode
    let reason: String
    /// Why the client closed, when no call to `close` did: a cancelled reader, a dropped socket.
    var cause: String?
}
