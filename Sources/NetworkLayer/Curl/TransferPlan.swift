internal import CNetworkLayerCurl
import Foundation

/// What libcurl is told for one hop of a request, decided here once: ``CurlTransfer`` applies
/// it and ``CurlCommand`` renders it as a `curl` command line, so the command is what is sent.
struct TransferPlan {
    let request: PreparedRequest
    /// The request's transfer settings for this hop, as decided for this origin (see `init`).
    let options: TransferOptions
    /// Whether the body is handed over while it arrives (``ByteStream``, ``EventStream``, ``JSONLines``).
    let streaming: Bool

    init(_ hop: PreparedRequest) {
        // A hop a network middleware saw signed is signed again as it now is, at the same time.
        let signer = hop.resolved.authentication?.sigV4
        let presigned = signer.flatMap { hop.withoutSignature(of: $0) }
        let request = presigned?.request ?? hop
        self.request = request
        streaming = request.resolved.streamKind != nil
        body = request.body?.forSending ?? (request.method == .post || request.method == .put || request.method == .patch ? .bytes(Data()) : nil)
        options = Self.options(for: request)
        // The provider's credentials that are not headers go to its own origin only, and not
        // when the request carries an Authorization of its own.
        guard request.isAtProviderOrigin, let authentication = request.resolved.authentication,
              authentication.challenge != nil || authentication.sigV4 != nil,
              request.headers.value(for: "Authorization") == nil else { return }
        challenge = authentication.challenge
        if let signer = authentication.sigV4 {
            signatureHeaders = sign(with: signer, at: presigned?.date ?? Date())
            if let authorization = signatureHeaders.last?.value {
                request.resolved.signatures.withLock { signatures in
                    if signatures.count >= 16 { signatures.removeFirst() }  // a long retry loop keeps its latest
                    signatures.append(authorization)
                    if let signature = authorization.range(of: "Signature=") { signatures.append(String(authorization[signature.upperBound...])) }
                }
            }
        }
    }

    private static func options(for request: PreparedRequest) -> TransferOptions {
        let options = request.resolved.options
        guard options.unixSocketPath != nil || options.cookieJar != nil || options.clientCertificate != nil || options.tls != nil else {
            return options  // as they are: most requests have none of them
        }
        // The provider's Unix socket, client certificate and TLS options are for its own origin only.
        let dropsOriginBound = !request.isAtProviderOrigin && (options.unixSocketPath != nil || options.clientCertificate != nil || options.tls != nil)
        // A Cookie header set by the user wins: that request neither sends nor stores the store's cookies.
        let dropsCookies = options.cookieJar != nil && request.headers.value(for: "Cookie") != nil
        return dropsOriginBound || dropsCookies ? options.dropping(originBound: dropsOriginBound, cookies: dropsCookies) : options
    }

    // MARK: Authentication libcurl or the plan does

    /// Digest, NTLM or Negotiate, which libcurl answers the server's challenge with.
    private(set) var challenge: (scheme: Authentication.ChallengeScheme, user: String, password: String)?
    /// The SigV4 headers signing exactly what this plan sends (after every interceptor).
    private(set) var signatureHeaders: [(name: String, value: String)] = []

    private func sign(with signer: AWSSigV4, at date: Date) -> [(name: String, value: String)] {
        let payloadHash: String?
        switch body {
        case nil: payloadHash = AWSSigV4.hexDigest([])
        case .bytes(let data)?: payloadHash = SHA256Digest.of(data)?.hex
        case .file?, .multipart?, .stream?: payloadHash = nil
        }
        let sent = request.headers.map { ($0.name, $0.value) } + libraryHeaders.map { ($0.name, $0.value) }
        return signer.headers(method: request.method.rawValue, urlText: request.urlText, headers: sent, payloadHash: payloadHash, date: date,
                              sendsPathAsIs: options.table.sendsPathAsIs)
    }

    /// The credentials libcurl or the signer uses, which identify the caller to the response
    /// cache (hashed into its partition, never stored), or `nil`.
    var cacheCaller: String? {
        challenge != nil || !signatureHeaders.isEmpty ? request.resolved.authentication?.callerIdentity : nil
    }

    // MARK: The request line and body

    enum MethodForm: Equatable {
        case get
        case head
        case post
        case custom(String)
    }

    var methodForm: MethodForm {
        switch request.method {
        case .get: request.body == nil ? .get : .custom("GET")  // unusual, but some APIs want it (params as .json)
        case .head: .head
        case .post: .post
        default: .custom(request.method.rawValue)
        }
    }

    /// The body libcurl sends: the request's, or an empty one for `POST`, `PUT` and `PATCH`
    /// without one (so that they carry `Content-Length: 0`).
    let body: PreparedBody?

    // MARK: Headers

    /// Whether libcurl asks for a compressed body and decodes it: not for a HEAD (no body) or a
    /// stream (a paused libcurl would keep the whole decompressed rest of a chunk in memory).
    var decodesBody: Bool { !streaming && request.method != .head }

    /// Headers libcurl would add on its own that must not be sent: `Expect: 100-continue` and, for
    /// a body without a type, `Content-Type: application/x-www-form-urlencoded`.
    var suppressedHeaders: [String] {
        guard let body else { return [] }
        var suppressed: [String] = []
        if request.headers.value(for: "Expect") == nil { suppressed.append("Expect") }
        if request.headers.value(for: "Content-Type") == nil, !Self.typesItsOwnBody(body) { suppressed.append("Content-Type") }
        return suppressed
    }

    /// The library's own headers, after the request's unless it set them, then the SigV4 signature's.
    var addedHeaders: [(name: String, value: String)] {
        signatureHeaders.isEmpty ? libraryHeaders : libraryHeaders + signatureHeaders
    }

    private var libraryHeaders: [(name: String, value: String)] {
        var added: [(name: String, value: String)] = []
        if request.headers.value(for: "User-Agent") == nil { added.append(("User-Agent", Self.userAgent)) }
        if decodesBody, request.headers.value(for: "Accept-Encoding") == nil { added.append(("Accept-Encoding", Self.acceptedEncodings)) }
        return added
    }

    /// Every header line as sent, in order; suppressed ones as `Name:` (libcurl's "do not send").
    var headerLines: [(name: String, value: String?)] {
        request.headers.map { ($0.name, $0.value) } + addedHeaders.map { ($0.name, $0.value) } + suppressedHeaders.map { ($0, nil) }
    }

    /// The header list for libcurl: a shared one when the request has no header of its own and
    /// nothing to suppress, else one built for it.
    func curlHeaderList() throws(NetworkError) -> CurlHeaderList {
        if request.headers.isEmpty, body == nil, signatureHeaders.isEmpty {
            return try (decodesBody ? CurlHeaderList.standard : CurlHeaderList.userAgentOnly).get()
        }
        return try CurlHeaderList(request.headers, suppressing: suppressedHeaders, adding: addedHeaders)
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
    var isHTTPS: Bool { request.urlText.hasPrefix("https:") }

    /// `CURLOPT_TIMEOUT_MS`, at least 1 ms; 0 (no limit) beyond 10⁹ s and for a stream, whose
    /// timeout bounds a silence instead (the engine's `streamDeadline`).
    var timeoutMilliseconds: Int {
        guard !streaming, request.timeout.isFinite, request.timeout <= PreparedRequest.timeoutCeiling else { return 0 }
        return max(1, Int((request.timeout * 1000).rounded(.up)))
    }

    /// How long a stream may stay silent, in whole seconds; `nil` without a limit or for a whole response.
    var streamSilenceSeconds: Int? {
        guard streaming, request.timeout.isFinite, request.timeout <= PreparedRequest.timeoutCeiling else { return nil }
        return max(1, Int(request.timeout.rounded(.up)))
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
        guard let seconds = options.connectTimeout, seconds.isFinite, seconds <= PreparedRequest.timeoutCeiling else { return nil }
        return max(1, Int((seconds * 1000).rounded(.up)))
    }

    /// How long a complete response may send nothing (`CURLOPT_LOW_SPEED_TIME`, 1 byte per second);
    /// `nil` without an idle timeout, and for a stream.
    var idleSeconds: Int? {
        guard !streaming, let seconds = options.idleTimeout, seconds.isFinite, seconds <= PreparedRequest.timeoutCeiling else { return nil }
        return max(1, Int(seconds.rounded(.up)))
    }

    /// The largest body accepted (`CURLOPT_MAXFILESIZE_LARGE`); 0 means no limit.
    var maximumFileSize: Int64 { Int64(options.table.maximumResponseSize ?? 0) }

    /// Redirects are followed by the pipeline, one transfer per hop (so that credentials can be
    /// dropped when a hop changes origin); a command line asks curl to follow them as the request's
    /// policy does, except where curl could not keep the secrets home.
    var redirectPolicy: RedirectPolicy { request.resolved.redirectPolicy }

    var downloadDestination: URL? { streaming ? nil : request.resolved.downloadDestination }
}
