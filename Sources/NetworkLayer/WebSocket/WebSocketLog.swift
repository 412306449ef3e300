import Foundation

/// The log's lines after a WebSocket's handshake, in the order things happened: one per message
/// sent (`↑ text 5 bytes: hello`) or received (`↓ binary 1024 bytes`, when it arrives, read or
/// not), then how it ended (who closed, the code, the reason). Previews as for bodies: JSON with
/// secret fields redacted, the request's secret values scrubbed, control characters escaped.
final class WebSocketLog: Sendable {
    /// Lines held back before the handshake's answer is logged, at most.
    static let heldLimit = 256

    private let log: NetworkLog
    private let request: PreparedRequest

    private struct State {
        var handshakeLogged = false
        var ended = false
        /// Lines that came before the handshake's answer was logged (a server that greets or
        /// closes at once is faster than the pipeline's 101 line): they follow it.
        var held: [String] = []
        var heldDropped = 0
    }
    private let state = Protected(State())

    init(_ log: NetworkLog, request: PreparedRequest) {
        self.log = log
        self.request = request
    }

    deinit {
        // A 101 that was never logged (a middleware answered instead): what was held is not lost.
        handshakeLogged()
    }

    /// The handshake's answer is in the log: the lines held back follow it, in order. Lines
    /// written meanwhile join the held ones until none is left, so that none overtakes them.
    func handshakeLogged() {
        while true {
            let (lines, dropped) = state.withLock { state -> ([String], Int) in
                guard !state.held.isEmpty || state.heldDropped > 0 else {
                    state.handshakeLogged = true
                    return ([], 0)
                }
                defer { state.held = []; state.heldDropped = 0 }
                return (state.held, state.heldDropped)
            }
            guard !lines.isEmpty || dropped > 0 else { return }
            for line in lines { log.note(line, of: request) }
            if dropped > 0 { log.note("(\(dropped) more lines before the handshake's answer was logged are left out)", of: request) }
        }
    }

    /// Writes `line`, or holds it back until the handshake's answer is logged.
    private func write(_ line: String) {
        let now = state.withLock { state -> Bool in
            guard !state.handshakeLogged else { return true }
            if state.held.count < Self.heldLimit { state.held.append(line) } else { state.heldDropped += 1 }
            return false
        }
        if now { log.note(line, of: request) }
    }

    func message(_ message: WebSocketMessage, outgoing: Bool) {
        let arrow = outgoing ? "↑" : "↓"
        switch message {
        case .text(let text):
            let preview = log.showsBodies && !text.isEmpty ? ": " + log.previewLine(text) : ""
            write("\(arrow) text \(text.utf8.count) bytes\(preview)")
        case .binary(let data):
            write("\(arrow) binary \(data.count) bytes")
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
        guard !state.withLock({ state in defer { state.ended = true }; return state.ended }) else { return }
        write(Self.line(end, closing: closing, status: status))
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
