import Foundation

/// A mock WebSocket's script, from a `.ws` file: one step per line, run by the mock's peer.
///
///     # The server greets, expects "hello", answers, and closes.
///     < {"type":"welcome"}          the socket receives this text
///     > hello                       the client must send this text next ("> *": any message)
///     <b AAEC                       the socket receives these bytes (Base64)
///     >b AAEC                       the client must send these bytes next
///     ~ 0.5                         the server pauses (0 to 60 seconds)
///     <j "two\nlines "              the socket receives this text, a JSON string literal (`>j`:
///                                   the client must send it): for text one line cannot hold
///     close 1000 bye                the server closes with this code and reason
///
/// Record mode writes such a script from a live session (``RecordingWebSocketChannel``). Lines end
/// in LF or CRLF; a file over ``maximumFileSize`` is refused. Blank lines and lines starting with
/// `#` are skipped. A client message that differs from what a `>` line expects ends the client's
/// loop with ``NetworkError/invalidRequest(_:)`` naming the line (close code 1008). When the script
/// ends without `close`, the server closes with 1000.
struct WebSocketScript: Sendable {
    /// The largest script read: a recording keeps messages up to 16 MiB, 22 MiB as Base64.
    static let maximumFileSize = 64 << 20

    enum Step: Sendable, Equatable {
        case receive(WebSocketMessage)
        /// `nil`: any message.
        case expect(WebSocketMessage?)
        case pause(Duration)
        case close(WebSocketCloseCode, String)
    }

    let name: String
    let steps: [(line: Int, step: Step)]

    /// - Throws: ``NetworkError/invalidRequest(_:)`` naming the line that is not a step.
    init(parsing data: Data, name: String, request: String) throws(NetworkError) {
        self.name = name
        func invalid(_ line: Int, _ reason: String) -> NetworkError {
            .invalidRequest(.init(request: request, reason: "the mock WebSocket script \(name), line \(line): \(reason)"))
        }
        guard data.count <= Self.maximumFileSize else {
            throw .invalidRequest(.init(request: request, reason: "the mock WebSocket script \(name) is over \(Self.maximumFileSize) bytes, "
                + "the most a script may be: split the session or leave its largest messages out"))
        }
        guard let text = String(data: data, encoding: .utf8) else { throw invalid(1, "the file is not UTF-8") }
        var steps: [(line: Int, step: Step)] = []
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let number = index + 1
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
            func binary(_ payload: Substring) throws(NetworkError) -> Data {
                guard let data = Data(base64Encoded: String(payload.trimmingCharacters(in: .whitespaces))) else {
                    throw invalid(number, "\"\(HeaderFields.printable(String(payload.prefix(40))))\" is not Base64")
                }
                return data
            }
            func literal(_ payload: Substring) throws(NetworkError) -> String {
                guard let text = try? JSONDecoder().decode(String.self, from: Data(payload.utf8)) else {
                    throw invalid(number, "\"\(HeaderFields.printable(String(payload.prefix(40))))\" is not a JSON string literal")
                }
                return text
            }
            if line.hasPrefix("<j ") {
                steps.append((number, .receive(.text(try literal(line.dropFirst(3))))))
            } else if line.hasPrefix(">j ") {
                steps.append((number, .expect(.text(try literal(line.dropFirst(3))))))
            } else if line.hasPrefix("<b ") {
                steps.append((number, .receive(.binary(try binary(line.dropFirst(3))))))
            } else if line.hasPrefix(">b ") {
                steps.append((number, .expect(.binary(try binary(line.dropFirst(3))))))
            } else if line.hasPrefix("< ") || line == "<" {
                steps.append((number, .receive(.text(String(line.dropFirst(2))))))
            } else if line == "> *" {
                steps.append((number, .expect(nil)))
            } else if line.hasPrefix("> ") || line == ">" {
                steps.append((number, .expect(.text(String(line.dropFirst(2))))))
            } else if line.hasPrefix("~ ") {
                guard let seconds = Double(line.dropFirst(2).trimmingCharacters(in: .whitespaces)), seconds >= 0, seconds <= 60 else {
                    throw invalid(number, "a pause is 0 to 60 seconds (\"~ 0.5\")")
                }
                steps.append((number, .pause(.milliseconds(Int((seconds * 1000).rounded())))))
            } else if line.hasPrefix("close") {
                let parts = line.split(separator: " ", maxSplits: 2)
                let code = parts.count > 1 ? UInt16(parts[1]).map(WebSocketCloseCode.init(rawValue:)) : .normalClosure
                guard let code, code.isSendable else { throw invalid(number, "\"close\" takes a code that may be sent (1000–1003, 1007–1014, 3000–4999)") }
                steps.append((number, .close(code, parts.count > 2 ? String(parts[2]) : "")))
            } else {
                throw invalid(number, "a step starts with \"< \", \"> \", \"<b \", \">b \", \"<j \", \">j \", \"~ \" or \"close\", not \"\(HeaderFields.printable(String(line.prefix(40))))\"")
            }
        }
        self.steps = steps
    }

    /// Plays the script as the server.
    func run(with peer: WebSocketPeer) async throws {
        var messages = peer.messages.makeAsyncIterator()
        for (line, step) in steps {
            switch step {
            case .receive(let message):
                try await peer.send(message)
            case .expect(let expected):
                guard let message = try await messages.next() else { return }
                if let expected, message != expected {
                    peer.channel.peerFail(.invalidRequest(.init(request: peer.request.description, reason:
                        "the mock WebSocket script \(name), line \(line), expected \(Self.describe(expected)), and the client sent \(Self.describe(message))")),
                                          code: .policyViolation)
                    return
                }
            case .pause(let duration):
                try await Task.sleep(for: duration)
            case .close(let code, let reason):
                peer.close(code, reason: reason)
                return
            }
        }
    }

    static func describe(_ message: WebSocketMessage) -> String {
        switch message {
        case .text(let text): "the text \"\(HeaderFields.printable(String(text.prefix(200))))\""
        case .binary(let data): "\(data.count) bytes of binary"
        }
    }
}
