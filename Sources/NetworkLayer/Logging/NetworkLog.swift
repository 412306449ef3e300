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
    private static let prettyPrintLimit = 256 * 1024
    private static let nextID = Atomic<Int>(1)

    /// How many request logs were ever created: the tests check that a request with logging off
    /// creates none (so it formats nothing).
    static var created: Int { nextID.load(ordering: .relaxed) - 1 }

    let id: Int
    let redactor: Redactor
    let mocked: Bool
    private let sink: @Sendable (String) -> Void

    init(redactor: Redactor, mocked: Bool, sink: @escaping @Sendable (String) -> Void) {
        id = Self.nextID.add(1, ordering: .relaxed).oldValue
        self.redactor = redactor
        self.mocked = mocked
        self.sink = sink
    }

    private var prefix: String { "[NetworkLayer #\(id)]" }
    private var mockMark: String { mocked ? " [MOCK]" : "" }

    func request(_ request: PreparedRequest, curl: String? = nil) {
        var text = "\(prefix) → \(request.redactedDescription)\(mockMark)\n"
        // The request's own rules: the manager's, plus the names its provider's adapt(_:) declared secret.
        let redactor = request.redactor
        for header in request.headers {
            text += "  \(header.name): \(redactor.redact(header: header.name, value: header.value))\n"
        }
        switch request.body {
        case .bytes(let data)? where !data.isEmpty:
            text += "  body: \(data.count) bytes\n" + preview(of: data)
        case .file(let url, let size)?:
            text += "  body: \(size) bytes streamed from \(url.path)\n"
        case .multipart(let form)?:
            text += "  body: multipart/form-data, \(form.parts.count) parts\n"
            for part in form.parts { text += "    \(describe(part))\n" }
        default:
            break
        }
        if let curl { text += "  $ \(curl)\n" }
        sink(Redactor.scrub(text, secrets: redactor.secretValues(of: request)))
    }

    func response(_ response: HTTPResponse, to request: PreparedRequest, elapsed: Duration) {
        var text = "\(prefix) ← \(response.statusCode) \(request.redactedDescription) in \(Self.milliseconds(elapsed)) ms, "
            + "\(response.downloadedFile.map { "\($0.size) bytes to \($0.url.path)" } ?? "\(response.body.count) bytes")\(mockMark)\n"
        if let metrics = response.metrics {
            text += "  \(metrics.httpVersion) from \(metrics.remoteAddress ?? "?"): dns \(Self.milliseconds(metrics.nameLookup)) ms, "
                + "connect \(Self.milliseconds(metrics.connect)) ms, tls \(Self.milliseconds(metrics.tlsHandshake)) ms, "
                + "first byte \(Self.milliseconds(metrics.firstByte)) ms, total \(Self.milliseconds(metrics.total)) ms\n"
        }
        for name in response.headers.keys.sorted() {
            text += "  \(name): \(redactor.redact(header: name, value: response.headers[name]!))\n"
        }
        text += preview(of: response.body)
        sink(Redactor.scrub(text, secrets: request.redactor.secretValues(of: request)))
    }

    func failure(_ error: NetworkError, of request: String, elapsed: Duration) {
        // The description names the request already, unless the error could not know it.
        let description = error.errorDescription ?? "\(error)"
        let subject = description.contains(request) ? "" : " \(request)"
        sink("\(prefix) ✗\(subject) failed after \(Self.milliseconds(elapsed)) ms\(mockMark): \(description)\n")
    }

    func note(_ message: String) {
        sink("\(prefix) \(message)\n")
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

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    // MARK: Body previews

    /// Pretty-printed JSON (secret fields redacted), else UTF-8 text, else a byte count; indented,
    /// cut at ``previewLimit`` characters.
    func preview(of body: Data) -> String {
        guard !body.isEmpty else { return "" }
        var text: String
        if body.count <= Self.prettyPrintLimit, let json = prettyJSON(body) {
            text = json
        } else if let utf8 = Self.utf8Prefix(of: body) {
            text = utf8
        } else {
            return "  <\(body.count) bytes of binary data>\n"
        }
        if text.count > Self.previewLimit {
            text = String(text.prefix(Self.previewLimit)) + "\n… (preview truncated)"
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { "  \($0)\n" }.joined()
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
    private func redactFields(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var copy: [String: Any] = [:]
            for (key, member) in object {
                copy[key] = redactor.isSecretField(key) ? Redactor.placeholder : redactFields(member)
            }
            return copy
        }
        if let array = value as? [Any] { return array.map(redactFields) }
        return value
    }
}
