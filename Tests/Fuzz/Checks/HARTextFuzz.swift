import Foundation
@testable import NetworkLayer

/// Recorded traffic as HAR, the file a team attaches to a bug report: a request carrying secrets
/// of every kind (a bearer token, a header the provider declares secret, a secret query item, a
/// `password` field of a JSON body), answered by a hostile server: any status, header lines whose
/// names and values the input builds from any text and from the secrets (whole, inside other text,
/// under any name), a body of any bytes (UTF-8 or not, the secrets inside or not), a `Location`
/// quoting them, and maybe a failure whose description quotes them; the request's URL may carry a
/// secret under a query item of another name. Anywhere, a secret may be spelled with percent-escapes
/// (`%6E` for `n`, any letters escaped, either case of hex digit).
///
/// Checked: nothing traps; the HAR is JSON that reads back as HAR 1.2 (one entry, the request's
/// method, the response's status, every response header line in order); no secret is in any of its
/// texts, nor in a body kept as Base64 once decoded, as it is or with its percent-escapes decoded; a
/// UTF-8 body without a secret (however spelled) is kept as it is, and any other body without one
/// decodes back from Base64 to its bytes.
enum HARTextFuzz {
    private struct Provider: ServiceProvider {
        let token: String
        let tenantKey: String
        var host: String { "api.example.com" }
        var httpScheme: HTTPScheme { .https }
        var authentication: Authentication? { .bearer(token) }
        var secretHeaderNames: Set<String> { ["X-Tenant-Key"] }
        func createHTTPHeaders() -> [String: String] { ["X-Tenant-Key": tenantKey] }
    }

    private final class Request: BaseRequest<Data> {}

    private static let names = ["X-Echo", "Set-Cookie", "Location", "WWW-Authenticate", "Content-Type", "X-Reflected-Authorization",
                                "Authorization", "X-Tenant-Key", "Server", "x", "X-\u{1B}[31m", "Ünï", ""]
    private static let words = ["Bearer ", "token=", "; ", "\"", "\\", "%", "%2F", "\u{1B}[2J", "\u{7}", "\u{0}", "\u{2028}",
                                "é", "🙂", "<redacted>", "api_key=", "&", "=", " ", "\t"]

    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        // Letters and digits after a prefix no other text of a HAR holds: a secret found in the
        // HAR came from the request, and no secret holds another.
        let secrets = (0..<4).map { "nlS\($0)" + token(&bytes) }
        let provider = Provider(token: secrets[0], tenantKey: secrets[1])
        var endpoint = "/items?api_key=\(secrets[2])"
        if bytes.bool() { endpoint += "&note=\(maybeEscaped(secrets[bytes.choice(4)], &bytes))" }
        let request = Request(serviceProvider: provider, endpoint: endpoint)
        // The fourth is a secret only when the request sends it, as a JSON body's `password`.
        var carried = Array(secrets.prefix(3))
        if bytes.bool() {
            request.httpMethod = .post
            request.body = .json(object: ["password": secrets[3], "note": text(&bytes, secrets: secrets)])
            carried.append(secrets[3])
        }
        let prepared: PreparedRequest
        do {
            prepared = try request.resolved().prepare(providerHeaders: provider.createHTTPHeaders(),
                                                     credentials: Authentication.Credentials(headers: [("Authorization", "Bearer \(secrets[0])")]))
        } catch {
            throw FuzzFailure("the request could not be prepared: \(error)")
        }

        // The server's answer, or a failure.
        let status = [200, 201, 204, 301, 302, 400, 401, 404, 500, 599][bytes.choice(10)]
        var fields: [(name: String, value: String)] = []
        for _ in 0..<bytes.choice(8) {
            let name = bytes.bool() ? names[bytes.choice(names.count)] : text(&bytes, secrets: secrets)
            fields.append((name: name, value: text(&bytes, secrets: secrets)))
        }
        var body = Data(bytes.take(bytes.choice(200)))
        if bytes.bool() { body.append(contentsOf: Array(maybeEscaped(secrets[bytes.choice(4)], &bytes).utf8)) }
        body.append(contentsOf: bytes.take(bytes.choice(20)))
        let location = bytes.bool() ? "https://evil.test/?leak=" + text(&bytes, secrets: secrets) : nil
        let fails = bytes.choice(4) == 0
        let response = HTTPResponse(statusCode: status, headers: ResponseHeaders(fields: fields), body: body, isMocked: false,
                                    origin: RequestOrigin(of: prepared), expectations: ResponseExpectations(), redirectLocation: location)
        let error = NetworkError.transport(.init(request: "GET \(prepared.url)", reason: "the server said " + text(&bytes, secrets: secrets)))

        let traffic = RecordedTraffic()
        traffic.record(TransferPlan(prepared), started: Date(), response: fails ? nil : response, error: fails ? error : nil, toFile: false)
        let har: Data
        do {
            har = try traffic.har()
        } catch {
            throw FuzzFailure("the HAR could not be written: \(error)")
        }

        // It reads back as HAR.
        guard let document = try? JSONSerialization.jsonObject(with: har) as? [String: Any],
              let log = document["log"] as? [String: Any], let entries = log["entries"] as? [[String: Any]],
              let entry = entries.first, entries.count == 1,
              let harRequest = entry["request"] as? [String: Any], let harResponse = entry["response"] as? [String: Any],
              let content = harResponse["content"] as? [String: Any], let text = content["text"] as? String,
              let headers = harResponse["headers"] as? [[String: String]] else {
            throw FuzzFailure("the HAR does not read back: \(String(decoding: har.prefix(500), as: UTF8.self))")
        }
        try require(log["version"] as? String == "1.2", "version \(String(describing: log["version"]))")
        try require(harRequest["method"] as? String == request.httpMethod.rawValue, "method \(String(describing: harRequest["method"]))")
        try require(harResponse["status"] as? Int == (fails ? 0 : status), "status \(String(describing: harResponse["status"]))")
        try require(headers.count == (fails ? 0 : fields.count), "\(headers.count) response headers for \(fields.count) lines")

        // No secret anywhere, in any text or a Base64 body once decoded.
        var texts: [(path: String, text: String)] = []
        collectStrings(document, at: "", into: &texts)
        for secret in carried {
            for found in texts where spellsSecret(secret, in: Array(found.text.utf8)) {
                throw FuzzFailure("the secret \(secret) is in the HAR at \(found.path): \(found.text.debugDescription)")
            }
        }
        let base64 = content["encoding"] as? String == "base64"
        if base64 {
            guard let decoded = Data(base64Encoded: text) else { throw FuzzFailure("the Base64 body does not decode: \(text)") }
            for secret in carried where spellsSecret(secret, in: Array(decoded)) {
                throw FuzzFailure("the secret \(secret) is in the Base64 body")
            }
        }

        // A body without a secret, however spelled (percent-escaped, or in one of the base64 forms the
        // redactor looks for: a token inside an encoded document), is kept as it came.
        if !fails, !carried.contains(where: { spellsSecret($0, in: Array(body)) || spellsInBase64($0, in: Array(body)) }) {
            if let utf8 = String(data: body, encoding: .utf8) {
                try require(!base64 && text == utf8, "the UTF-8 body \(utf8.debugDescription) was kept as \(text.debugDescription)")
            } else {
                try require(base64 && Data(base64Encoded: text) == body, "the binary body was kept as \(text.debugDescription)")
            }
        }
    }

    /// `secret`, or (one time in two) with some of its characters percent-escaped, hex digits in
    /// either case: spellings no encoder makes, which a scrubber must still see through.
    private static func maybeEscaped(_ secret: String, _ bytes: inout FuzzBytes) -> String {
        guard bytes.bool() else { return secret }
        var spelled = ""
        for byte in secret.utf8 {
            if bytes.bool() {
                let hex = String(byte, radix: 16)
                spelled += "%" + (bytes.bool() ? hex.uppercased() : hex)
            } else {
                spelled.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return spelled
    }

    /// Four to twelve letters and digits.
    private static func token(_ bytes: inout FuzzBytes) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<(4 + bytes.choice(9))).map { _ in alphabet[bytes.choice(alphabet.count)] })
    }

    /// Text a server or a caller might write: words, secrets, any bytes read as UTF-8.
    private static func text(_ bytes: inout FuzzBytes, secrets: [String]) -> String {
        var text = ""
        for _ in 0..<bytes.choice(6) {
            switch bytes.choice(3) {
            case 0: text += words[bytes.choice(words.count)]
            case 1: text += maybeEscaped(secrets[bytes.choice(secrets.count)], &bytes)
            default: text += String(decoding: bytes.take(bytes.choice(12)), as: UTF8.self)
            }
        }
        return text
    }

    /// Every string of a JSON value, keys included, with where it is (`log.entries[0].request.url`).
    private static func collectStrings(_ value: Any, at path: String, into texts: inout [(path: String, text: String)]) {
        switch value {
        case let text as String: texts.append((path, text))
        case let array as [Any]:
            for (index, element) in array.enumerated() { collectStrings(element, at: "\(path)[\(index)]", into: &texts) }
        case let dictionary as [String: Any]:
            for (key, element) in dictionary {
                texts.append((path, key))
                collectStrings(element, at: path.isEmpty ? key : "\(path).\(key)", into: &texts)
            }
        default: break
        }
    }
}

/// Whether `bytes` spell `secret`, as it is or with percent-escapes (decoded as many times as the
/// redactor decodes when it scrubs).
/// Whether `bytes` hold `secret` in a base64 form the redactor scrubs (``Redactor/base64Forms(of:)``).
func spellsInBase64(_ secret: String, in bytes: [UInt8]) -> Bool {
    Redactor.base64Forms(of: Array(secret.utf8)).contains { bytes.containsBytes($0.utf8) }
}

func spellsSecret(_ secret: String, in bytes: [UInt8]) -> Bool {
    var level = bytes
    for _ in 0...Redactor.percentDecodingDepth {
        if level.containsBytes(secret.utf8) { return true }
        level = level.percentDecodedLeniently()
    }
    return false
}
