import Foundation
import Synchronization

/// The verbose log of one request: what went out, what came back, or how it failed.
///
/// A `NetworkLog` exists only while logging is on, so when it is off no text is ever built.
/// Entries look like this (one block per event, handed whole to the log handler):
///
///     [NetworkLayer #12] → GET https://itunes.apple.com/search?limit=3&term=Dream%20Theater [MOCK]
///       Accept: application/json
///       Authorization: <redacted>
///     [NetworkLayer #12] ← 200 GET https://itunes.apple.com/search?… in 3 ms, 612 bytes [MOCK]
///       Content-Type: application/json
///       {
///         "resultCount" : 3,
///       …
///     [NetworkLayer #13] ✗ failed after 1002 ms: The request timed out: … (GET http://127.0.0.1:8080/slow)
struct NetworkLog: Sendable {
    /// Text previews of bodies stop after this many characters.
    static let previewLimit = 4096
    /// Bodies larger than this are not parsed as JSON for pretty-printing.
    static let prettyPrintLimit = 256 * 1024
    private static let nextID = Atomic<Int>(1)
    private static let logsCreated = Atomic<Int>(0)

    /// How many request logs were ever created: the tests check that a request with logging off
    /// creates none (so it formats nothing).
    static var created: Int { logsCreated.load(ordering: .relaxed) }

    /// A request id for a call without a log (its events'), from the log's own sequence.
    static func takeID() -> Int { nextID.add(1, ordering: .relaxed).oldValue }

    let id: Int
    let redactor: Redactor
    let mocked: Bool
    /// Where the text goes, when the text log is on (`isVerbose`).
    private let sink: (@Sendable (String) -> Void)?
    /// Where entries go, when `logEntryHandler` is set.
    private let entrySink: (@Sendable (NetworkLogEntry) -> Void)?

    /// The log of one request under `settings`, or `nil` when neither the text log nor the
    /// entry handler is on: then nothing about the request is ever formatted.
    init?(settings: Settings, mocked: Bool, operationID: String? = nil) {
        let sink = settings.isVerbose ? settings.logSink : nil
        guard sink != nil || settings.logEntryHandler != nil else { return nil }
        self.init(redactor: settings.redactor, mocked: mocked, sink: sink, entrySink: settings.logEntryHandler,
                  operationID: operationID)
    }

    init(redactor: Redactor, mocked: Bool, sink: (@Sendable (String) -> Void)?,
         entrySink: (@Sendable (NetworkLogEntry) -> Void)? = nil, operationID: String? = nil) {
        id = Self.takeID()
        Self.logsCreated.add(1, ordering: .relaxed)
        self.redactor = redactor
        self.mocked = mocked
        self.sink = sink
        // Printed as given by the caller's code, but escaped like everything else the log shows.
        let operationID = operationID?.escapingControlCharacters
        prefix = "[NetworkLayer #\(id)\(operationID.map { " \($0)" } ?? "")]"
        self.entrySink = entrySink.map { entrySink in
            guard let operationID else { return entrySink }
            return { entry in
                var entry = entry
                entry.operationID = operationID
                entrySink(entry)
            }
        }
    }

    /// `[NetworkLayer #12]`, or `[NetworkLayer #12 getGreeting]` for a request naming its operation.
    private let prefix: String
    private var mockMark: String { mocked ? " [MOCK]" : "" }

    /// The request's attempt line. `cacheNote` says what the response cache did instead of
    /// sending it ("answered from the cache: HIT, not sent"), when it did. A WebSocket's handshake
    /// is written as the socket (`→ WebSocket wss://…`, what it offers), without `curl`: a curl
    /// command would not open the socket.
    func request(_ request: PreparedRequest, curl: String? = nil, cacheNote: String? = nil) {
        // The request's own rules: the manager's, plus the names its provider's adapt(_:) declared secret.
        let redactor = request.redactor
        let secrets = redactor.secretValues(of: request)
        let isWebSocket = request.resolved.webSocket != nil
        let curl = isWebSocket ? nil : curl
        let subject = isWebSocket ? "WebSocket \(Self.webSocketURL(redactor.redact(url: request.url)))" : request.redactedDescription
        let headline = "→ \(subject.escapingControlCharacters)\(mockMark)" + (cacheNote.map { " (\($0))" } ?? "")
        let headers = request.headers.map { Self.header($0.name, redactor.redact(header: $0.name, value: $0.value)) }
        // The body: a summary line, then its preview or parts (unindented).
        var bodySummary: String?
        var bodyDetail: String?
        var bodySize: Int64?
        var partLines: [String]?
        switch request.body {
        case .bytes(let data)? where !data.isEmpty:
            bodySummary = "body: \(data.count) bytes"
            bodyDetail = previewText(of: data)
            bodySize = Int64(data.count)
        case .file(let url, let size)?:
            bodySummary = "body: \(size) bytes streamed from \(url.path)"
            bodySize = Int64(size)
        case .multipart(let form)?:
            bodySummary = "body: multipart/form-data, \(form.parts.count) parts"
            partLines = form.parts.map { describe($0).escapingControlCharacters }
            bodyDetail = partLines?.joined(separator: "\n")
        case .stream(let upload)?:
            bodySummary = "body: streamed, " + (upload.length.map { "\($0) bytes" } ?? "length unknown")
            bodySize = upload.length
        default:
            break
        }
        if let sink {
            var text = "\(prefix) \(headline)\n"
            for header in headers { text += "  \(header.name): \(header.value)\n" }
            if let bodySummary {
                text += "  \(bodySummary)\n"
                if let partLines {
                    for line in partLines { text += "    \(line)\n" }
                } else {
                    text += bodyDetail.map { Self.indented($0, by: "  ") } ?? ""
                }
            }
            if let curl { text += "  $ \(curl)\n" }
            if isWebSocket {
                text += "  offers " + Self.webSocketTerms(protocols: request.headers.value(for: "Sec-WebSocket-Protocol"),
                                                          extensions: request.headers.value(for: "Sec-WebSocket-Extensions")) + "\n"
            }
            sink(Redactor.scrub(text, secrets: secrets))
        }
        if let entrySink {
            let url = Redactor.scrub(redactor.redact(url: request.url), secrets: secrets)
            func scrubbed(_ text: String?) -> String? { text.map { Redactor.scrub($0, secrets: secrets) } }
            entrySink(NetworkLogEntry(phase: .request, level: .info, requestID: id, method: request.method, url: url,
                                      isMocked: mocked, message: Redactor.scrub(headline, secrets: secrets),
                                      bytesSent: bodySize ?? 0,
                                      headers: headers.map { .init(name: $0.name, value: Redactor.scrub($0.value, secrets: secrets)) }))
            if bodySummary != nil || curl != nil {
                let body = [bodySummary, bodyDetail].compactMap { $0 }.joined(separator: "\n")
                entrySink(NetworkLogEntry(phase: .request, level: .debug, requestID: id, method: request.method, url: url,
                                          isMocked: mocked, message: Redactor.scrub("→ body of \(request.redactedDescription)", secrets: secrets),
                                          bytesSent: bodySize ?? 0, body: body.isEmpty ? nil : scrubbed(body),
                                          curlCommand: scrubbed(curl)))
            }
        }
    }

    func response(_ response: HTTPResponse, to request: PreparedRequest, elapsed: Duration) {
        let secrets = request.redactor.secretValues(of: request)
        let received = response.downloadedFile.map { $0.size } ?? Int64(response.body.count)
        let isOpenSocket = response.webSocket != nil
        let size = isOpenSocket ? "open" : response.stream != nil ? "streaming"
            : response.downloadedFile.map { "\($0.size) bytes to \($0.url.path)" } ?? "\(response.body.count) bytes"
        let subject = request.resolved.webSocket != nil ? "WebSocket \(Self.webSocketURL(request.redactor.redact(url: request.url)))"
            : request.redactedDescription
        let headline = "← \(response.statusCode) \(subject) in \(Self.milliseconds(elapsed)) ms, \(size)\(mockMark)"
            .escapingControlCharacters + Self.cacheMark(response.cacheStatus)
        // Names and values as the server sent them: escaped, so that none can command a terminal or forge a line.
        let headers = response.headers.sorted { $0.key < $1.key }
            .map { Self.header($0.key, redactor.redact(header: $0.key, value: $0.value)) }
        let preview = previewText(of: response.body)
        if let sink {
            var text = "\(prefix) \(headline)\n"
            if let metrics = response.metrics {
                var timing = metrics.queueTime == .zero ? "" : "queued \(Self.milliseconds(metrics.queueTime)) ms, "
                timing += "dns \(Self.milliseconds(metrics.nameLookup)) ms, connect \(Self.milliseconds(metrics.connect)) ms"
                // On a plain connection there was no TLS: its time would only repeat the connect time.
                if metrics.usedTLS { timing += ", tls \(Self.milliseconds(metrics.tlsHandshake)) ms" }
                // libcurl stops at the connection for a socket (the handshake is ours, timed by the headline).
                if !isOpenSocket { timing += ", first byte \(Self.milliseconds(metrics.firstByte)) ms, total \(Self.milliseconds(metrics.total)) ms" }
                text += "  \(metrics.httpVersion) from \(metrics.remoteAddress ?? "?"): \(timing)\n"
            }
            if isOpenSocket {
                // What the server chose: its words, escaped like its headers.
                text += ("  accepted " + Self.webSocketTerms(protocols: response.headerBlock.value(for: "Sec-WebSocket-Protocol"),
                                                              extensions: response.headerBlock.value(for: "Sec-WebSocket-Extensions")))
                    .escapingControlCharacters + "\n"
            }
            for header in headers { text += "  \(header.name): \(header.value)\n" }
            text += preview.map { Self.indented($0, by: "  ") } ?? ""
            sink(Redactor.scrub(text, secrets: secrets))
        }
        if let entrySink {
            let url = Redactor.scrub(request.redactor.redact(url: request.url), secrets: secrets)
            entrySink(NetworkLogEntry(phase: .response, level: .info, requestID: id, method: request.method, url: url,
                                      isMocked: mocked, message: Redactor.scrub(headline, secrets: secrets),
                                      statusCode: response.statusCode, elapsed: elapsed, bytesSent: response.metrics?.bytesSent,
                                      bytesReceived: received, metrics: response.metrics,
                                      headers: headers.map { .init(name: $0.name, value: Redactor.scrub($0.value, secrets: secrets)) },
                                      cacheStatus: response.cacheStatus))
            if let preview {
                entrySink(NetworkLogEntry(phase: .response, level: .debug, requestID: id, method: request.method, url: url,
                                          isMocked: mocked,
                                          message: Redactor.scrub("← body of \(response.statusCode) \(request.redactedDescription)", secrets: secrets),
                                          statusCode: response.statusCode, elapsed: elapsed, bytesReceived: received,
                                          body: Redactor.scrub(preview, secrets: secrets)))
            }
        }
        // A socket's end that came before this line (a server closing at once) follows it.
        response.webSocket?.log?.handshakeLogged()
    }

    /// ` [HIT]`, ` [REVALIDATED]`, ` [MISS]`, ` [STALE]`: where a response came from, when the
    /// manager has a cache; empty without one.
    static func cacheMark(_ status: CacheStatus?) -> String {
        switch status {
        case .hit?: " [HIT]"
        case .revalidated?: " [REVALIDATED]"
        case .miss?: " [MISS]"
        case .stale?: " [STALE]"
        case nil: ""
        }
    }

    /// The request failed; `request` is `nil` when it failed before it was prepared (then the
    /// resolved request describes it).
    func failure(_ error: NetworkError, of request: PreparedRequest?, resolved: ResolvedRequest, elapsed: Duration) {
        let described = (request?.redactedDescription ?? resolved.describeUnprepared()).escapingControlCharacters
        // The error is redacted already; the request's secret values are scrubbed once more in
        // case a text reached the error some other way.
        let secrets = request.map { $0.redactor.secretValues(of: $0) } ?? []
        // A server's words can be in it (the message of an error body, libcurl's account of a reply).
        let description = Redactor.scrub(error.errorDescription ?? "\(error)", secrets: secrets).escapingControlCharacters
        // The description names the request already, unless the error could not know it.
        let subject = description.contains(described) ? "" : " \(described)"
        let message = "✗\(subject) failed after \(Self.milliseconds(elapsed)) ms\(mockMark): \(description)"
        sink?("\(prefix) \(message)\n")
        if let entrySink {
            let url = request.map { Redactor.scrub($0.redactor.redact(url: $0.url), secrets: secrets) }
                ?? resolved.unpreparedURL()
            entrySink(NetworkLogEntry(phase: .failure, level: .error, requestID: id, method: request?.method ?? resolved.method,
                                      url: url, isMocked: mocked, message: message,
                                      statusCode: error.context?.statusCode, elapsed: elapsed, errorDescription: description,
                                      errorCode: error.code))
        }
    }

    /// Whether this log shows bodies (the text log's previews, or the entries' debug level): only
    /// then are a stream's items kept for ``streamEnded(_:of:items:bytes:previews:elapsed:)``.
    var showsBodies: Bool { sink != nil || entrySink != nil }

    /// The body of a streamed response ended: one line with what it carried and how it ended,
    /// then (text log) a preview of its first items, redacted and cut like a body's.
    func streamEnded(_ ending: StreamBody.Ending, of request: PreparedRequest, items: Int, bytes: Int64, previews: [String],
                     elapsed: Duration) {
        let secrets = request.redactor.secretValues(of: request)
        let counted = request.resolved.streamKind?.items(items) ?? "\(items) items"
        let how: String
        var errorDescription: String?
        var errorCode: String?
        switch ending {
        case .finished: how = "finished"
        case .cancelled(let reason): how = "cancelled: \(reason)"
        case .failed(let error):
            let description = Redactor.scrub(error.errorDescription ?? "\(error)", secrets: secrets).escapingControlCharacters
            how = "failed: \(description)"
            errorDescription = description
            errorCode = error.code
        }
        let headline = Redactor.scrub("⇣ stream of \(request.redactedDescription.escapingControlCharacters) ended after "
                                      + "\(Self.milliseconds(elapsed)) ms, \(counted), \(bytes) bytes, \(how)\(mockMark)", secrets: secrets)
        var preview: String?
        if !previews.isEmpty {
            var text = previews.map { Redactor.scrub(previewLine($0), secrets: secrets).escapingControlCharacters }.joined(separator: "\n")
            if text.count > Self.previewLimit {
                text = String(text.prefix(Self.previewLimit)) + "\n… (preview truncated)"
            } else if previews.count < items {
                // The items kept filled the preview before the stream ended (compacted, they may be shorter).
                text += "\n… (preview truncated)"
            }
            preview = text
        }
        if let sink {
            sink("\(prefix) \(headline)\n" + (preview.map { Self.indented($0, by: "  ") } ?? ""))
        }
        if let entrySink {
            let url = Redactor.scrub(request.redactor.redact(url: request.url), secrets: secrets)
            let failed = errorDescription != nil
            entrySink(NetworkLogEntry(phase: .streamEnded, level: failed ? .error : .info, requestID: id, method: request.method,
                                      url: url, isMocked: mocked, message: headline, elapsed: elapsed, bytesReceived: bytes,
                                      errorDescription: errorDescription, errorCode: errorCode))
            if let preview {
                entrySink(NetworkLogEntry(phase: .streamEnded, level: .debug, requestID: id, method: request.method, url: url,
                                          isMocked: mocked, message: Redactor.scrub("⇣ items of \(request.redactedDescription)", secrets: secrets),
                                          elapsed: elapsed, bytesReceived: bytes, body: preview))
            }
        }
    }

    /// One item of a stream as its preview shows it: JSON on one line with secret fields
    /// redacted, else the text, cut at ``previewLimit`` characters.
    func previewLine(_ text: String) -> String {
        let data = Data(text.utf8)
        if data.count <= Self.prettyPrintLimit,
           let first = data.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }),
           first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
           let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
           let compact = try? JSONSerialization.data(withJSONObject: redactFields(object), options: [.sortedKeys, .withoutEscapingSlashes]) {
            return String(decoding: compact, as: UTF8.self)
        }
        return String(text.prefix(Self.previewLimit)).replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A received item's text as a stream's preview keeps it (an NDJSON line): whole up to the
    /// size the log parses as JSON, so that ``previewLine(_:)`` redacts its secret fields as a
    /// body's preview would; beyond that its first ``previewLimit`` bytes, shown as text like the
    /// start of a body too large to parse.
    static func previewableText(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if bytes.count <= prettyPrintLimit { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: bytes.prefix(previewLimit), as: UTF8.self)
    }

    /// An attempt of `request` failed and it is tried again.
    func retry(_ message: String, of request: PreparedRequest) {
        event(.retry, message, of: request)
    }

    func note(_ message: String, of request: PreparedRequest) {
        event(.note, message, of: request)
    }

    private func event(_ phase: NetworkLogEntry.Phase, _ message: String, of request: PreparedRequest) {
        let secrets = request.redactor.secretValues(of: request)
        // One line: a cause quoted from a server (a retried failure's reason) cannot break it.
        let message = Redactor.scrub(message.trimmingCharacters(in: .newlines), secrets: secrets).escapingControlCharacters
        sink?("\(prefix) \(message)\n")
        entrySink?(NetworkLogEntry(phase: phase, level: .info, requestID: id, method: request.method,
                                   url: Redactor.scrub(request.redactor.redact(url: request.url), secrets: secrets), isMocked: mocked,
                                   message: message))
    }

    private func describe(_ part: MultipartFormData.Part) -> String {
        switch part {
        case .text(let name, let value):
            let shown = redactor.isSecretField(name) ? Redactor.placeholder : String(value.prefix(200))
            return "\(name): \(shown)"
        case .data(let name, let data, let filename, let mimeType):
            return "\(name): \(data.count) bytes" + (filename.map { ", file \($0)" } ?? "") + (mimeType.map { ", \($0)" } ?? "")
        case .file(let name, let url, let filename, let mimeType):
            return "\(name): streamed from \(url.path)" + (filename.map { " as \($0)" } ?? "") + (mimeType.map { ", \($0)" } ?? "")
        }
    }

    /// A WebSocket's URL as its scheme says it: `ws://` for `http://`, `wss://` for `https://`.
    static func webSocketURL(_ url: String) -> String {
        if url.lowercased().hasPrefix("https://") { return "wss://" + url.dropFirst(8) }
        if url.lowercased().hasPrefix("http://") { return "ws://" + url.dropFirst(7) }
        return url
    }

    /// `subprotocol chat.v2, extensions permessage-deflate`: a handshake's subprotocols and
    /// extensions (offered or accepted) as its headers say them, or `no subprotocol, no extension`.
    static func webSocketTerms(protocols: String?, extensions: String?) -> String {
        func listed(_ value: String?) -> String? { value.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } }
        let protocols = listed(protocols).map { ($0.contains(",") ? "subprotocols " : "subprotocol ") + $0 } ?? "no subprotocol"
        let extensions = listed(extensions).map { ($0.contains(",") ? "extensions " : "extension ") + $0 } ?? "no extension"
        return "\(protocols), \(extensions)"
    }

    /// Whole milliseconds, saturating instead of overflowing for absurd durations.
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = Int(seconds).multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        return whole.addingReportingOverflow(Int(attoseconds / 1_000_000_000_000_000)).partialValue
    }

    // MARK: Body previews

    /// Pretty-printed JSON (secret fields redacted), else UTF-8 text, else a byte count; cut at
    /// ``previewLimit`` characters. `nil` for an empty body.
    func previewText(of body: Data) -> String? {
        guard !body.isEmpty else { return nil }
        var text: String
        if body.count <= Self.prettyPrintLimit, let json = prettyJSON(body) {
            text = json
        } else if let utf8 = Self.utf8Prefix(of: body) {
            text = utf8
        } else {
            return "<\(body.count) bytes of binary data>"
        }
        if text.count > Self.previewLimit {
            text = String(text.prefix(Self.previewLimit)) + "\n… (preview truncated)"
        }
        // Line breaks and tabs shape the preview; every other control character is shown, not obeyed.
        return text.escapingControlCharactersInBody
    }

    /// A header as the log shows it: name and value with every control character escaped.
    private static func header(_ name: String, _ value: String) -> NetworkLogEntry.Header {
        NetworkLogEntry.Header(name: name.escapingControlCharacters, value: value.escapingControlCharacters)
    }

    /// Each line of `text` indented, and ended with a newline.
    private static func indented(_ text: String, by indentation: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "\(indentation)\($0)\n" }.joined()
    }

    /// The body's start as text, if it is UTF-8 (a character cut at the limit is dropped).
    private static func utf8Prefix(of body: Data) -> String? {
        let head = body.prefix(previewLimit)
        let longestCut = body.count > previewLimit ? 3 : 0
        for cut in 0...longestCut {
            if let text = String(data: head.dropLast(cut), encoding: .utf8) { return text }
        }
        return nil
    }

    private func prettyJSON(_ body: Data) -> String? {
        guard let first = body.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }),
              first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
              let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
              let data = try? JSONSerialization.data(withJSONObject: redactFields(object),
                                                     options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The JSON value with the values of secret-looking fields (`password`, `access_token`…) replaced.
    /// `true`, `false` and `null` stay: a bit is no secret, and the name alone may only look secret
    /// (`"authenticated": true` holds `auth`).
    private func redactFields(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var copy: [String: Any] = [:]
            for (key, member) in object {
                copy[key] = redactor.isSecretField(key) && !Self.isBooleanOrNull(member) ? Redactor.placeholder : redactFields(member)
            }
            return copy
        }
        if let array = value as? [Any] { return array.map(redactFields) }
        return value
    }

    /// Whether a value `JSONSerialization` read is `true`, `false` or `null` (a number is not).
    static func isBooleanOrNull(_ value: Any) -> Bool {
        if value is NSNull { return true }
        guard let number = value as? NSNumber else { return false }
        // A boolean's type code: a JSON number is read as an integer or a double.
        let type = String(cString: number.objCType)
        return type == "c" || type == "B"
    }
}
