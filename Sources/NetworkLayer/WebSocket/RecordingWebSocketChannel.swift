import Foundation

/// Record mode for a live WebSocket: a channel in front of the connection that writes each message
/// the client takes or sends as a ``WebSocketScript`` step, so that `<name>.ws` replays the session.
///
/// The transcript is the client's view: a received message is a step when the client takes it
/// (what it never read is not in it), a pause precedes a received message or the close when the
/// client waited at least ``minimumPause`` for it, and the close is the socket's close status (the
/// server's frame, or its answer to ours). Steps go to a temporary file and become the mock when
/// the socket closes; a session that failed (a broken connection, 1006), or that the client let
/// go of before any message, leaves no file.
/// Secret values of the request are written `<redacted>`.
final class RecordingWebSocketChannel: WebSocketChannel {
    /// A message over this is left out (a comment says so; a sent one is expected as `> *`), so
    /// that the transcript stays well below ``WebSocketScript/maximumFileSize``.
    static let maximumMessageSize = 16 << 20
    static let minimumPause = Duration.milliseconds(10)

    private let inner: any WebSocketChannel
    private let request: PreparedRequest
    private let destination: URL
    private let temporary: URL
    private let secrets: [String]
    private let recording: Protected<Recording>

    private struct Recording {
        var file: FileHandle?
        var last = ContinuousClock.now
        var messages = 0
    }

    private enum Ending {
        case closed((code: WebSocketCloseCode, reason: String)?)
        case wentAway
        case failed(String)
    }

    /// Starts the transcript of `channel`, the socket `request` opened, in `store`.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` when the file cannot be created.
    init(recording channel: any WebSocketChannel, for request: PreparedRequest, in store: MockStore) throws(NetworkError) {
        inner = channel
        self.request = request
        secrets = request.redactor.secretValues(of: request)
        destination = try store.file(named: store.recordingName(for: request), extension: "ws")
        temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).recording")
        recording = Protected(Recording())
        do {
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
            }
            let handle = try FileHandle(forWritingTo: temporary)
            let header = Redactor.scrub("# Recorded from \(request.redactedDescription) on \(Date().ISO8601Format()) by record mode.\n",
                                        secrets: secrets)
            try handle.write(contentsOf: Data(header.utf8))
            recording.withLock { $0.file = handle }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw .invalidRequest(.init(request: request.redactedDescription,
                                        reason: "the WebSocket could not be recorded at \(destination.path): \(error.localizedDescription)",
                                        underlyingError: error))
        }
    }

    deinit {
        finish(.wentAway)
    }

    // MARK: The channel

    nonisolated(nonsending) func send(_ message: WebSocketMessage) async throws(NetworkError) {
        // Written first, so that the server's answer to it cannot come before it in the file.
        write(message, sent: true)
        try await inner.send(message)
    }

    nonisolated(nonsending) func receive() async throws(NetworkError) -> WebSocketMessage? {
        do {
            guard let message = try await inner.receive() else {
                finish(.closed(inner.closeStatus))
                return nil
            }
            write(message, sent: false)
            return message
        } catch {
            if case .cancelled = error { finish(.wentAway) } else { finish(.failed(error.errorDescription ?? "\(error)")) }
            throw error
        }
    }

    nonisolated(nonsending) func close(_ code: WebSocketCloseCode, reason: String) async {
        await inner.close(code, reason: reason)
        finish(.closed(inner.closeStatus))
    }

    func closeSoon(_ code: WebSocketCloseCode, reason: String, because cause: String) {
        inner.closeSoon(code, reason: reason, because: cause)
        finish(.wentAway)
    }

    var closeStatus: (code: WebSocketCloseCode, reason: String)? { inner.closeStatus }

    // MARK: Writing

    private func write(_ message: WebSocketMessage, sent: Bool) {
        var lines: [String] = []
        if message.byteCount > Self.maximumMessageSize {
            lines.append("# a message of \(message.byteCount) bytes was left out: the recorder keeps messages up to \(Self.maximumMessageSize) bytes")
            if sent { lines.append("> *") }
        } else {
            let scrubbed: WebSocketMessage = switch message {
            case .text(let text): .text(Redactor.scrub(text, secrets: secrets))
            case .binary(let data): .binary(Redactor.scrub(bytes: Array(data), secrets: secrets).map { Data($0) } ?? data)
            }
            lines += Self.lines(sent ? .expect(scrubbed) : .receive(scrubbed))
        }
        recording.withLock { recording in
            recording.messages += 1
            append(lines, pausing: !sent, to: &recording)
        }
    }

    /// The lines of `step` in a script. A close reason's control characters are written as
    /// spaces, the exact reason in a comment before it.
    static func lines(_ step: WebSocketScript.Step) -> [String] {
        switch step {
        case .receive(.text(let text)): return [line("<", text: text)]
        case .expect(.text(let text)?): return [line(">", text: text)]
        case .receive(.binary(let data)): return ["<b " + data.base64EncodedString()]
        case .expect(.binary(let data)?): return [">b " + data.base64EncodedString()]
        case .expect(nil): return ["> *"]
        case .pause(let duration):
            let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
            return ["~ \(Double(milliseconds) / 1000)"]
        case .close(let code, let reason):
            let oneLine = String(String.UnicodeScalarView(reason.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
            let exact = oneLine == reason ? [] : ["# the close reason exactly: " + line("<", text: reason).dropFirst(3)]
            return exact + ["close \(code.rawValue)" + (oneLine.isEmpty ? "" : " " + oneLine)]
        }
    }

    /// A text step: `< text` when one line holds it exactly, else `<j "JSON string"`.
    static func line(_ prefix: String, text: String) -> String {
        let scalars = text.unicodeScalars
        let plain = !scalars.contains { [.control, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory) }
            && !(scalars.first?.properties.isWhitespace ?? false) && !(scalars.last?.properties.isWhitespace ?? false)
            && !(prefix == ">" && text == "*")
        // A leading combining mark would join the space after the prefix, hiding the prefix.
        if plain, text.isEmpty || (prefix + " " + text).dropFirst().first == " " { return text.isEmpty ? prefix : prefix + " " + text }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        // Encoding a String cannot fail; the fallback keeps the transcript valid regardless.
        let literal = (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        return prefix + "j " + literal
    }

    /// Writes `lines`, after a pause line when `pausing` and the client waited noticeably.
    private func append(_ lines: [String], pausing: Bool, to recording: inout Recording) {
        guard let file = recording.file else { return }
        let now = ContinuousClock.now
        var text = ""
        let gap = min(recording.last.duration(to: now), .seconds(60))
        if pausing, gap >= Self.minimumPause { text += Self.lines(.pause(gap))[0] + "\n" }
        recording.last = now
        for line in lines { text += line + "\n" }
        do {
            try file.write(contentsOf: Data(text.utf8))
        } catch {
            try? file.close()
            recording.file = nil
            try? FileManager.default.removeItem(at: temporary)
            note("record mode: the WebSocket could not be written to \(temporary.path): \(error.localizedDescription)")
        }
    }

    /// Ends the transcript once: it becomes the mock, unless the session failed.
    private func finish(_ ending: Ending) {
        var closing: [String] = []
        var failure: String?
        switch ending {
        case .closed(let status?) where status.code == .abnormalClosure:
            failure = "it ended without a close frame (1006)"
        case .closed(let status?) where status.code.isSendable:
            closing = Self.lines(.close(status.code, Redactor.scrub(status.reason, secrets: secrets)))
        case .closed(let status):
            closing.append("# the socket closed with \(status.map { "\($0.code.rawValue)" } ?? "no status"), which a script cannot send")
        case .wentAway:
            closing.append("# the client went away (1001)")
        case .failed(let why):
            failure = "it failed (\(why))"
        }
        // The first ending counts: the file leaves the lock with the last line written.
        guard let file = recording.withLock({ recording -> FileHandle? in
            // A socket dropped unused (a handshake a validator refused) must not replace a mock.
            if case .wentAway = ending, recording.messages == 0 { failure = "no message went either way" }
            if failure == nil { append(closing, pausing: true, to: &recording) }
            defer { recording.file = nil }
            return recording.file
        }) else { return }
        let closed = (try? file.close()) != nil
        if let failure {
            try? FileManager.default.removeItem(at: temporary)
            return note("record mode: the WebSocket was not recorded: \(failure)")
        }
        do {
            guard closed else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path]) }
            if FileManager.default.fileExists(atPath: destination.path) { try FileManager.default.removeItem(at: destination) }
            try FileManager.default.moveItem(at: temporary, to: destination)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            note("record mode: the WebSocket could not be recorded at \(destination.path): \(error.localizedDescription)")
        }
    }

    private func note(_ message: String) {
        if let log = request.resolved.log { log.note(message + "\n", of: request) } else { FileHandle.standardError.write(Data((message + "\n").utf8)) }
    }
}
