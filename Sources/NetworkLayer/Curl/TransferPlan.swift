internal import CNetworkLayerCurl
import Foundation

/// What the backend is told about one hop, decided by the core once (`PreparedRequest+Plan.swift`):
/// ``CurlTransfer`` applies it and ``CurlCommand`` renders it, so the command is what is sent. The
/// backend reads nothing of the request behind it (`BackendBoundaryTests`). A class: the transport,
/// the transfer and the record of its traffic share one, where copies of a struct this size would
/// retain every reference it holds, each time.
final class TransferPlan: Sendable {
    /// The largest timeout enforced, in seconds (about 31 years); a larger one means no limit.
    static let timeoutCeiling: TimeInterval = 1e9

    // MARK: The hop

    let method: HTTPMethod
    /// The URL's text, exactly as libcurl gets it.
    let urlText: String
    /// In the order they will be sent; names unique ignoring case.
    let headers: [(name: String, value: String)]
    /// What is left of the request's timeout for this hop, in seconds.
    let timeout: TimeInterval
    /// The request's timeout as the caller set it, which error messages name.
    let statedTimeout: TimeInterval
    /// The request's own body's size, if known (progress counts towards it).
    let bodyCount: Int64?
    /// The request as errors, logs and responses describe it, secrets redacted.
    let origin: RequestOrigin
    /// The request's transfer settings for this hop, as decided for this origin.
    let options: TransferOptions
    /// Whether the body is handed over while it arrives (``ByteStream``, ``EventStream``, ``JSONLines``).
    let streaming: Bool

    // MARK: What the caller watches and expects

    let progress: ProgressReporter?
    let events: CallEvents?
    let expectations: ResponseExpectations
    /// Redirects are followed by the chain, one transfer per hop (so that credentials can be
    /// dropped when a hop changes origin); a command line asks curl to follow them as the request's
    /// policy does, except where curl could not keep the secrets home.
    let redirectPolicy: RedirectPolicy
    /// Where a whole response's body is to be saved (the command line's `--output`).
    let saveDestination: URL?
    /// The WebSocket to open instead of a transfer, when the request asks for one.
    let webSocket: WebSocketDial?

    struct WebSocketDial: Sendable {
        let options: WebSocketOptions
        let log: WebSocketLog?
    }

    init(method: HTTPMethod, urlText: String, headers: [(name: String, value: String)], timeout: TimeInterval,
         statedTimeout: TimeInterval, bodyCount: Int64?, origin: RequestOrigin, options: TransferOptions, streaming: Bool,
         progress: ProgressReporter?, events: CallEvents?, expectations: ResponseExpectations, redirectPolicy: RedirectPolicy,
         saveDestination: URL?, webSocket: WebSocketDial?,
         challenge: (scheme: Authentication.ChallengeScheme, user: String, password: String)?, body: PreparedBody?) {
        self.method = method
        self.urlText = urlText
        self.headers = headers
        self.timeout = timeout
        self.statedTimeout = statedTimeout
        self.bodyCount = bodyCount
        self.origin = origin
        self.options = options
        self.streaming = streaming
        self.progress = progress
        self.events = events
        self.expectations = expectations
        self.redirectPolicy = redirectPolicy
        self.saveDestination = saveDestination
        self.webSocket = webSocket
        self.challenge = challenge
        self.body = body
    }

    /// `METHOD URL` with secrets redacted, for errors.
    var redactedDescription: String { origin.description }

    // MARK: Authentication libcurl answers

    /// Digest, NTLM or Negotiate, which libcurl answers the server's challenge with.
    let challenge: (scheme: Authentication.ChallengeScheme, user: String, password: String)?

    // MARK: The request line and body

    enum MethodForm: Equatable {
        case get
        case head
        case post
        case custom(String)
    }

    var methodForm: MethodForm {
        switch method {
        case .get: body == nil ? .get : .custom("GET")  // unusual, but some APIs want it (params as .json)
        case .head: .head
        case .post: .post
        default: .custom(method.rawValue)
        }
    }

    /// The body libcurl sends: the request's, or an empty one for `POST`, `PUT` and `PATCH`
    /// without one (so that they carry `Content-Length: 0`).
    let body: PreparedBody?

    // MARK: Headers

    /// Whether libcurl asks for a compressed body and decodes it: not for a HEAD (no body) or a
    /// stream (a paused libcurl would keep the whole decompressed rest of a chunk in memory).
    var decodesBody: Bool { Self.decodes(method: method, streaming: streaming) }

    static func decodes(method: HTTPMethod, streaming: Bool) -> Bool { !streaming && method != .head }

    /// Headers libcurl would add on its own that must not be sent: `Expect: 100-continue` and, for
    /// a body without a type, `Content-Type: application/x-www-form-urlencoded`.
    var suppressedHeaders: [String] {
        guard let body else { return [] }
        var suppressed: [String] = []
        if headers.value(for: "Expect") == nil { suppressed.append("Expect") }
        if headers.value(for: "Content-Type") == nil, !Self.typesItsOwnBody(body) { suppressed.append("Content-Type") }
        return suppressed
    }

    /// The library's own headers, after the request's unless it set them.
    var addedHeaders: [(name: String, value: String)] { Self.libraryHeaders(for: headers, decodesBody: decodesBody) }

    /// The headers libcurl adds to a request with `headers`: `User-Agent` and, for a body it
    /// decodes, `Accept-Encoding`, each unless the request has its own.
    static func libraryHeaders(for headers: [(name: String, value: String)], decodesBody: Bool) -> [(name: String, value: String)] {
        var added: [(name: String, value: String)] = []
        if headers.value(for: "User-Agent") == nil { added.append(("User-Agent", userAgent)) }
        if decodesBody, headers.value(for: "Accept-Encoding") == nil { added.append(("Accept-Encoding", acceptedEncodings)) }
        return added
    }

    /// Every header line as sent, in order; suppressed ones as `Name:` (libcurl's "do not send").
    var headerLines: [(name: String, value: String?)] {
        headers.map { ($0.name, $0.value) } + addedHeaders.map { ($0.name, $0.value) } + suppressedHeaders.map { ($0, nil) }
    }

    /// The header list for libcurl: a shared one when the request has no header of its own and
    /// nothing to suppress, else one built for it.
    func curlHeaderList() throws(NetworkError) -> CurlHeaderList {
        if headers.isEmpty, body == nil {
            return try (decodesBody ? CurlHeaderList.standard : CurlHeaderList.userAgentOnly).get()
        }
        return try CurlHeaderList(headers, suppressing: suppressedHeaders, adding: addedHeaders)
    }

    /// Multipart bodies get their `Content-Type` (with the boundary) from libcurl.
    private static func typesItsOwnBody(_ body: PreparedBody) -> Bool {
        if case .multipart = body { return true }
        return false
    }

    /// The library's name and version, not libcurl's: the exact libcurl underneath would tell an
    /// attacker which of its known flaws to try.
    static let userAgent = "NetworkLayer/\(NetworkLayerInfo.version)"

    /// The content codings this libcurl decodes, in libcurl's order.
    static let decodedCodings: [String] = {
        let features = curl_version_info(CURLVERSION_TENTH)?.pointee.features ?? 0
        var codings: [String] = []
        if features & CURL_VERSION_LIBZ != 0 { codings += ["deflate", "gzip"] }
        if features & CURL_VERSION_BROTLI != 0 { codings.append("br") }
        if features & CURL_VERSION_ZSTD != 0 { codings.append("zstd") }
        return codings
    }()

    static let acceptedEncodings = decodedCodings.isEmpty ? "identity" : decodedCodings.joined(separator: ", ")

    // MARK: Connection and limits

    /// Whether the URL is `https` (read from the text, without parsing `url`).
    var isHTTPS: Bool { urlText.hasPrefix("https:") }

    /// `CURLOPT_TIMEOUT_MS`, at least 1 ms; 0 (no limit) beyond 10⁹ s and for a stream, whose
    /// timeout bounds a silence instead (the engine's `streamDeadline`).
    var timeoutMilliseconds: Int {
        guard !streaming, timeout.isFinite, timeout <= Self.timeoutCeiling else { return 0 }
        return max(1, Int((timeout * 1000).rounded(.up)))
    }

    /// How long a stream may stay silent, in whole seconds; `nil` without a limit or for a whole response.
    var streamSilenceSeconds: Int? {
        guard streaming, timeout.isFinite, timeout <= Self.timeoutCeiling else { return nil }
        return max(1, Int(timeout.rounded(.up)))
    }

    var curlHTTPVersion: Int {
        switch options.table.httpVersion {
        case .automatic: Int(CURL_HTTP_VERSION_2TLS)
        case .http1_1: Int(CURL_HTTP_VERSION_1_1)
        case .http2PriorKnowledge: Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        }
    }

    /// `CURLOPT_CONNECTTIMEOUT_MS`, at least 1 ms; `nil` for libcurl's default (and beyond the ceiling).
    var connectTimeoutMilliseconds: Int? {
        guard let seconds = options.connectTimeout, seconds.isFinite, seconds <= Self.timeoutCeiling else { return nil }
        return max(1, Int((seconds * 1000).rounded(.up)))
    }

    /// How long a complete response may send nothing (`CURLOPT_LOW_SPEED_TIME`, 1 byte per second);
    /// `nil` without an idle timeout, and for a stream.
    var idleSeconds: Int? {
        guard !streaming, let seconds = options.idleTimeout, seconds.isFinite, seconds <= Self.timeoutCeiling else { return nil }
        return max(1, Int(seconds.rounded(.up)))
    }

    /// The largest body accepted (`CURLOPT_MAXFILESIZE_LARGE`); 0 means no limit.
    var maximumFileSize: Int64 { Int64(options.table.maximumResponseSize ?? 0) }

    var downloadDestination: URL? { streaming ? nil : saveDestination }
}
