import Foundation

/// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the fields a viewer needs. `_error`
/// is Chromium's own field for a request that got no response.
enum HAR {
    struct Document: Encodable {
        let log: Log
    }

    struct Log: Encodable {
        var version = "1.2"
        let creator: Creator
        var pages: [String] = []
        let entries: [Entry]
    }

    struct Creator: Encodable {
        let name: String
        let version: String
    }

    struct Entry: Encodable {
        let startedDateTime: String
        let time: Double
        let request: Request
        let response: Response
        var cache: [String: String] = [:]
        let timings: Timings
        let serverIPAddress: String?
        let _error: String?

        /// The body bytes this entry keeps, for the recorder's bound.
        var bodyBytes: Int { (request.postData?.text.utf8.count ?? 0) + response.content.text.utf8.count }
    }

    struct Header: Encodable {
        let name: String
        let value: String
    }

    struct Request: Encodable {
        let method: String
        let url: String
        let httpVersion: String
        var cookies: [Header] = []
        let headers: [Header]
        let queryString: [Header]
        let postData: PostData?
        var headersSize = -1
        let bodySize: Int64
    }

    struct PostData: Encodable {
        let mimeType: String
        var params: [Header] = []
        let text: String
        let comment: String?
    }

    struct Response: Encodable {
        let status: Int
        let statusText: String
        let httpVersion: String
        var cookies: [Header] = []
        let headers: [Header]
        let content: Content
        let redirectURL: String
        var headersSize = -1
        let bodySize: Int64
    }

    struct Content: Encodable {
        let size: Int64
        let mimeType: String
        /// Empty, with a comment saying why, for a body not kept (readers expect the field).
        let text: String
        let encoding: String?
        let comment: String?
    }

    /// Milliseconds; -1 where the step did not happen (a reused connection has no DNS, connect or TLS).
    struct Timings: Encodable {
        var blocked = -1.0
        let dns: Double
        let connect: Double
        let ssl: Double
        var send = 0.0
        let wait: Double
        let receive: Double
    }
}

extension RecordedTraffic {
    /// Records one hop that went over the network: `plan` as sent (the headers libcurl got,
    /// signatures included), and its response or failure, redacted as the log redacts them: a
    /// secret header's value and a secret query item's value hidden by name, and every secret value
    /// of the request scrubbed from every other text, wherever the server or the caller put it
    /// (a header that echoes the token, a query item of another name, the body, the error).
    func record(_ plan: TransferPlan, started: Date, response: HTTPResponse?, error: NetworkError?, toFile: Bool) {
        let redactor = plan.origin.redactor
        let secrets = plan.origin.secretValues
        func header(_ name: String, _ value: String) -> HAR.Header {
            HAR.Header(name: Redactor.scrub(name, secrets: secrets),
                       value: Redactor.scrub(redactor.redact(header: name, value: value), secrets: secrets))
        }
        let url = Redactor.scrub(redactor.redact(url: plan.origin.url), secrets: secrets)
        let headers = plan.headerLines.compactMap { line in line.value.map { header(line.name, $0) } }
        let contentType = Redactor.scrub(plan.headers.value(for: "Content-Type") ?? "", secrets: secrets)
        let metrics = response?.metrics
        let version = metrics?.httpVersion ?? "HTTP/1.1"
        let timings = Self.timings(metrics)
        let responseHeaders = response?.headerBlock.lines.map { header($0.name, $0.value) } ?? []
        let received = metrics?.bytesReceived ?? Int64(response?.body.count ?? 0)
        var content = HAR.Content(size: 0, mimeType: "", text: "", encoding: nil, comment: nil)
        if let response {
            let type = Redactor.scrub(response.value(forHeader: "Content-Type") ?? "", secrets: secrets)
            if toFile {
                content = HAR.Content(size: received, mimeType: type, text: "", encoding: nil, comment: "written to a file, not kept")
            } else if response.stream != nil {
                content = HAR.Content(size: -1, mimeType: type, text: "", encoding: nil, comment: "a stream, read by the app, not kept")
            } else {
                let (text, encoding, comment) = Self.bodyText(response.body, secrets: secrets)
                content = HAR.Content(size: Int64(response.body.count), mimeType: type, text: text, encoding: encoding, comment: comment)
            }
        }
        var postData: HAR.PostData?
        switch plan.body {
        case .bytes(let data)? where !data.isEmpty:
            let (text, encoding, comment) = Self.bodyText(data, secrets: secrets)
            postData = HAR.PostData(mimeType: contentType, text: encoding == nil ? text : "",
                                    comment: encoding == nil ? comment : "\(data.count) bytes of binary data, not kept")
        case .file?, .multipart?, .stream?:
            postData = HAR.PostData(mimeType: contentType, text: "", comment: "streamed from a file, a form or a sequence, not kept")
        default:
            postData = nil
        }
        let entry = HAR.Entry(
            startedDateTime: Self.timestamp(started),
            time: metrics.map { Self.milliseconds($0.total) } ?? Date().timeIntervalSince(started) * 1000,
            request: HAR.Request(method: plan.method.rawValue, url: url, httpVersion: version, headers: headers,
                                 queryString: Self.queryItems(of: url, secrets: secrets), postData: postData,
                                 bodySize: plan.body?.count ?? 0),
            response: HAR.Response(status: response?.statusCode ?? 0, statusText: "", httpVersion: response == nil ? "" : version,
                                   headers: responseHeaders, content: content,
                                   redirectURL: response?.redirectLocation.map { Redactor.scrub(redactor.redact(urlString: $0), secrets: secrets) } ?? "",
                                   bodySize: response == nil ? -1 : received),
            timings: timings, serverIPAddress: metrics?.remoteAddress,
            _error: error.map { Redactor.scrub($0.errorDescription ?? "\($0)", secrets: secrets) })
        append(entry)
    }

    /// A body as HAR text: UTF-8 as it is, anything else Base64, its first ``bodyLimit`` bytes,
    /// every secret value scrubbed (from a binary body too, byte for byte).
    static func bodyText(_ data: Data, secrets: [String]) -> (text: String, encoding: String?, comment: String?) {
        let kept = data.prefix(bodyLimit)
        let comment = kept.count < data.count ? "the first \(kept.count) of \(data.count) bytes" : nil
        if let text = String(data: kept, encoding: .utf8) { return (Redactor.scrub(text, secrets: secrets), nil, comment) }
        let bytes = Redactor.scrub(bytes: Array(kept), secrets: secrets).map { Data($0) } ?? Data(kept)
        return (bytes.base64EncodedString(), "base64", comment)
    }

    /// The HAR timings from libcurl's, which count from the transfer's start.
    static func timings(_ metrics: TransferMetrics?) -> HAR.Timings {
        guard let metrics else { return HAR.Timings(dns: -1, connect: -1, ssl: -1, wait: -1, receive: -1) }
        let connected = metrics.connect > .zero
        let secure = metrics.tlsHandshake > metrics.connect
        let ready = secure ? metrics.tlsHandshake : metrics.connect
        return HAR.Timings(dns: connected ? milliseconds(metrics.nameLookup) : -1,
                           connect: connected ? milliseconds(ready - metrics.nameLookup) : -1,
                           ssl: secure ? milliseconds(metrics.tlsHandshake - metrics.connect) : -1,
                           wait: max(0, milliseconds(metrics.firstByte - ready)),
                           receive: max(0, milliseconds(metrics.total - metrics.firstByte)))
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return max(0, (Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 1000).rounded() / 1000
    }

    /// ISO 8601 in UTC with milliseconds, as HAR readers expect.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// The query items of a (redacted) URL, decoded, and scrubbed again once decoded: a secret
    /// the URL spelled with escapes its scrubbing did not know is plain text here.
    static func queryItems(of url: String, secrets: [String]) -> [HAR.Header] {
        (URLComponents(string: url)?.queryItems ?? []).map {
            HAR.Header(name: Redactor.scrub($0.name, secrets: secrets), value: Redactor.scrub($0.value ?? "", secrets: secrets))
        }
    }
}
