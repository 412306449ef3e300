internal import CNetworkLayerCurl
import Foundation
import Synchronization

/// One request on its way through libcurl: the configured easy handle, the response as it
/// arrives, and who to tell when it is done.
// @unchecked Sendable: the submitting thread configures a transfer in `init`; from the moment it
// is handed to the engine (through the engine's locked inbox) only the engine thread touches its
// mutable state. The one field other threads use, `isCancellationRequested`, is atomic.
final class CurlTransfer: @unchecked Sendable {
    let plan: TransferPlan
    let handle: CurlEasyHandle
    /// The plan's settings for this transfer, read in place.
    var options: TransferOptions { _read { yield plan.options } }
    private let headerList: CurlHeaderList
    /// The pins in force when the request started, or `nil` when pinning is off.
    let pinning: PinningConfiguration?
    /// The client certificate this transfer presents, read and checked (mutual TLS), or `nil`.
    let clientIdentity: ClientIdentity?
    /// What the pin verifier of this transfer's handshakes requires and saw (`nl_pin_check *`).
    private let pinCheck: OpaquePointer?
    /// The scheme libcurl answers challenges with (Digest, NTLM, Negotiate), if any.
    let challenge: Authentication.ChallengeScheme?
    /// How many `401`s answered a challenge in this transfer (CurlTransfer+Challenge.swift). Engine thread.
    var challengesAnswered = 0

    /// Set by any thread when the request's task or handle is cancelled.
    let isCancellationRequested = Atomic<Bool>(false)

    // Engine thread only, from submission on.
    /// Takes the result (`consuming`: the response moves to the waiting task instead of being copied).
    var completion: (@Sendable (consuming Result<HTTPResponse, NetworkError>) -> Void)?
    // @exclusivity(unchecked) on the state the callbacks touch for every piece of every response:
    // only the engine thread uses it, never reentrantly (what it saves: Benchmarks/RESULTS.md).
    @exclusivity(unchecked) private var body = Data()
    @exclusivity(unchecked) private var headerBlock = ResponseHeaderBlock(tracksLastStored: CurlEasyHandle.keepsStaleHeaderPointer)
    /// The host whose pins the last handshake checked.
    private var pinnedHost: String?
    /// The rules covering that host, enforced or not, which the handshake's hook reports on.
    private var coveringRules: [PinningConfiguration.Rule] = []
    /// Why the TLS options' trust callback refused the last handshake's chain.
    private var trustRejection: String?
    var cacheKey: ConnectionCacheKey?
    /// The cookie jar's share this transfer uses instead of a cache of the engine's. Engine thread only.
    var cookieShare: CurlShare?
    /// Closed in `deinit`.
    private var uploadFile: UnsafeMutablePointer<FILE>?
    /// The multipart body, which libcurl reads while sending: it must live as long as the transfer.
    private var mime: CurlMime?
    private(set) var upload: UploadStream?
    /// Where a download's body goes instead of memory (a temporary file), closed in `deinit`.
    private let downloadFile: UnsafeMutablePointer<FILE>?
    private let download: PendingDownload?
    /// A resumed download's offset (progress counts from it).
    private var priorBytes: Int64 = 0
    /// The largest body accepted, and whether the server exceeded it.
    private let maximumResponseSize: Int?
    private var exceededMaximumSize = false
    /// How far a compressed body may expand; checked only for a response with a `Content-Encoding`.
    private let decompressionLimit: DecompressionLimit
    private var exceededDecompressionLimit: (decoded: Int64, compressed: Int64)?
    private var malformedResponse: String?
    private var diskWriteErrno: Int32 = 0
    @exclusivity(unchecked) private var bytesReceived: Int64 = 0
    let progress: ProgressReporter?
    /// When progress was last reported; set only for a transfer that reports it.
    private var lastProgressReport: ContinuousClock.Instant?

    /// Streaming responses: the body goes to this bounded buffer instead of `body`, and `completion`
    /// gets the response as soon as its headers are complete.
    let stream: StreamBuffer?
    /// Whether the final response's headers are complete: its body goes to `stream` from now on,
    /// and the head to `completion` at the end of the round, so that a response whose body and end
    /// arrive in the same round reaches its caller whole, in one hand-off. Engine thread.
    var headReady = false
    /// Whether the response headers went to `completion` already. Engine thread.
    var headDelivered = false
    /// Hands a stream's chunks to its reader at the end of each round of I/O (set before the start).
    var streamEngine: CurlEngine?
    /// Whether chunks offered to `stream` in this round wait for the round's end. Engine thread.
    var streamDeliveryDue = false
    /// When a silent stream fails with a timeout: the request's timeout after the start, then after
    /// each chunk; `nil` while the stream is paused because its consumer is behind. Engine thread,
    /// from submission on, never reentrantly: unchecked like the callbacks' state above.
    @exclusivity(unchecked) var streamDeadline: ContinuousClock.Instant?
    /// How long a complete response may send nothing (``Timeouts/idle``): armed once the request has
    /// a connection and is about to be sent, moved on by every piece received or sent. `nil`
    /// without an idle timeout, and for a stream (whose silence its timeout bounds).
    let idleTimeout: Duration?
    /// The body bytes sent so far, as libcurl last reported them.
    private var bytesSentSoFar: Int64 = 0
    /// `CURLOPT_TIMEOUT_MS` (0: none).
    let timeoutMilliseconds: Int
    /// When the engine ends the transfer if libcurl has not (under ``ConnectionLimits`` only). Engine thread.
    var timeoutDeadline: ContinuousClock.Instant?
    /// Whether the transfer is in the engine's multi handle, which then holds a reference to it as
    /// the handle's `CURLOPT_PRIVATE` (CurlEngine's `add` and `removeFromMulti`). Engine thread.
    var isActive = false
    /// The call's events, when someone listens (CurlTransfer+Events.swift); `nil` sets no callback.
    let events: CallEvents?
    /// When the transfer was made, at or before libcurl's start: its phases' times count from it.
    let eventStart: ContinuousClock.Instant?

    /// Configures `handle` as `plan` says. Throws if libcurl refuses an option.
    init(plan: TransferPlan, handle: CurlEasyHandle, download: PendingDownload? = nil) throws(NetworkError) {
        self.handle = handle
        stream = plan.streaming ? StreamBuffer() : nil
        pinning = plan.options.pinning
        // Read and checked before anything else: a bad certificate fails the request before any connection.
        if let certificate = plan.options.clientCertificate {
            clientIdentity = try ClientIdentity.load(certificate, request: plan.redactedDescription)
        } else {
            clientIdentity = nil
        }
        maximumResponseSize = plan.options.table.maximumResponseSize
        decompressionLimit = plan.options.table.decompressionLimit
        progress = plan.progress
        if progress != nil { lastProgressReport = .now }
        events = plan.events
        eventStart = events == nil ? nil : .now
        idleTimeout = plan.idleSeconds == nil ? nil : plan.options.idleTimeout.map { Duration.milliseconds(Int64(($0 * 1000).rounded(.up))) }
        timeoutMilliseconds = plan.timeoutMilliseconds
        headerList = try plan.curlHeaderList()
        challenge = plan.challenge?.scheme
        // The two C resources last, each released if the other cannot be had: until every stored
        // property is set, a throwing init does not run `deinit`.
        var check: OpaquePointer?
        if pinning != nil || plan.options.tls?.trustCallback != nil {
            guard let created = nl_pin_check_create() else {
                throw .transport(.init(reason: "out of memory for the pin check"))
            }
            check = created
        }
        var file: UnsafeMutablePointer<FILE>?
        self.download = download
        if let download {
            // A resumed download appends; `restart` starts the file over.
            priorBytes = download.resumeOffset
            file = fopen(download.file.path, priorBytes > 0 ? "ab" : "wb")
            guard file != nil else {
                let reason = String(cString: strerror(errno))
                if let check { nl_pin_check_free(check) }
                throw .invalidRequest(.init(request: plan.redactedDescription,
                                            reason: "the download file \(download.file.path) could not be created: \(reason)"))
            }
        }
        pinCheck = check
        downloadFile = file
        self.plan = plan
        try configure(plan)
    }

    deinit {
        if let pinCheck { nl_pin_check_free(pinCheck) }
        if let uploadFile { fclose(uploadFile) }
        if let downloadFile { fclose(downloadFile) }
    }

    /// What a pooled handle keeps between plain transfers (see ``isPlain``): a setting that changes
    /// an option ``configureEveryOption(_:context:)`` sets must be part of the baseline, or make a
    /// transfer not plain (`BaselineCoverageTests` fails on a field of ``TransferOptions`` that is neither).
    struct Baseline: Equatable {
        var customCABundle: URL?
        var isHTTPS: Bool
        /// A stream's options: its receive buffer size, and no `CURLOPT_ACCEPT_ENCODING` (a plain
        /// GET decodes its body).
        var streams: Bool
        /// The request-start callback of the call's events, whose context each transfer sets.
        var events: Bool
        var unixSocketPath: String?
        var usesCookies: Bool
        var connectTimeout: TimeInterval?
        var idleTimeout: TimeInterval?
        /// The host overrides, held: `CURLOPT_CONNECT_TO` points at their list, which must live as
        /// long as the handle keeps the option (an identifier alone could match a later set made
        /// at the freed one's address, and the handle would route by the freed list).
        var hostOverrides: HostOverrides?
        /// The client certificate's identity number (0 for none): its bytes and password are options.
        var clientIdentity: Int
        var tls: TLSOptions?
        var table: Settings.Table

        init(_ options: TransferOptions, isHTTPS: Bool, streams: Bool, events: Bool, clientIdentity: Int) {
            customCABundle = options.customCABundle
            self.isHTTPS = isHTTPS
            self.streams = streams
            self.events = events
            unixSocketPath = options.unixSocketPath
            usesCookies = options.cookieJar != nil
            connectTimeout = options.connectTimeout
            idleTimeout = options.idleTimeout
            hostOverrides = options.hostOverrides
            self.clientIdentity = clientIdentity
            tls = options.tls
            table = options.table
        }

        /// Whether `options` over `isHTTPS` make this baseline, without building one per transfer.
        func matches(_ options: TransferOptions, isHTTPS: Bool, streams: Bool, events: Bool, clientIdentity: Int) -> Bool {
            self.isHTTPS == isHTTPS && self.streams == streams && self.events == events && customCABundle == options.customCABundle
                && unixSocketPath == options.unixSocketPath && usesCookies == (options.cookieJar != nil)
                && connectTimeout == options.connectTimeout && idleTimeout == options.idleTimeout
                && hostOverrides === options.hostOverrides && self.clientIdentity == clientIdentity
                && tls == options.tls && table == options.table
        }
    }

    /// How many transfers kept the options a pooled handle had (the tests check the reuse happens).
    static let keptConfigurations = Atomic<Int>(0)

    /// A GET without a body, progress, pins or a challenge, read whole or streamed: what a pooled
    /// handle can run on the options the last such transfer left, when its ``Baseline`` matches.
    private var isPlain: Bool {
        plan.method == .get && plan.body == nil && progress == nil && pinning == nil && challenge == nil
    }

    private func configure(_ plan: TransferPlan) throws(NetworkError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        // A handle the last plain transfer configured the same way keeps its options; any other starts
        // from a reset handle.
        let isHTTPS = plan.isHTTPS
        let identity = clientIdentity?.number ?? 0
        handle.requestsSent.pointee = 0
        let streams = stream != nil, evented = events != nil
        if isPlain, handle.keepsBaseline(options, isHTTPS: isHTTPS, streams: streams, events: evented, clientIdentity: identity) {
            handle.clearErrorBuffer()
            if streams { startStreamClock() }
            Self.keptConfigurations.add(1, ordering: .relaxed)
        } else {
            if handle.hasBaseline { handle.reset() }
            try configureEveryOption(plan, context: context)
            // Resolving otherwise, the handle is reset before reuse: the reset clears CURLOPT_RESOLVE
            // (see its resolveList) and ends the DNS over HTTPS lookups of a transfer removed before
            // they finished, which libcurl 7.88 leaves running in the multi handle until then.
            let keepsOptions = isPlain && options.table.resolvesByDefault
            handle.baseline = keepsOptions ? Baseline(options, isHTTPS: isHTTPS, streams: streams, events: evented, clientIdentity: identity) : nil
        }
        try handle.set(CURLOPT_URL, plan.urlText)  // the text, not `url` (parsing it costs ~3 k instructions)
        try handle.set(CURLOPT_WRITEDATA, pointer: context)
        try handle.set(CURLOPT_HEADERDATA, pointer: context)
        try handle.set(CURLOPT_HTTPHEADER, headers: headerList)
        // A stream's timeout is the engine's (streamDeadline): it bounds the silence, not the whole body.
        try handle.set(CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
        if idleTimeout != nil || evented { try handle.set(CURLOPT_PREREQDATA, pointer: context) }
    }

    private func configureEveryOption(_ plan: TransferPlan, context: UnsafeMutableRawPointer) throws(NetworkError) {
        try handle.armErrorBuffer()
        try handle.set(CURLOPT_NOSIGNAL, true)
        try handle.set(CURLOPT_WRITEFUNCTION, callback: curlWriteBody)
        try handle.set(CURLOPT_HEADERFUNCTION, callback: curlReceiveHeader)
        if stream != nil { try configureStreaming() }
        // The header is the plan's (addedHeaders); this option is what makes libcurl decode the body.
        if plan.decodesBody { try handle.set(CURLOPT_ACCEPT_ENCODING, "") }
        try handle.set(CURLOPT_HTTP_VERSION, plan.curlHTTPVersion)
        // Refuses an announced Content-Length over the limit; the write callback counts what arrives.
        if plan.maximumFileSize > 0 { try handle.set(CURLOPT_MAXFILESIZE_LARGE, offset: plan.maximumFileSize) }
        if let milliseconds = plan.connectTimeoutMilliseconds { try handle.set(CURLOPT_CONNECTTIMEOUT_MS, milliseconds) }
        if let seconds = plan.idleSeconds {
            try handle.set(CURLOPT_LOW_SPEED_LIMIT, 1)
            try handle.set(CURLOPT_LOW_SPEED_TIME, seconds)
            try configureIdleTimeout(sendsBody: plan.body != nil, context: context)
        } else if events != nil {
            try configureEvents()
        } else {
            try handle.armRequestCount()
        }
        if let keepAlive = options.table.keepAlive {
            // Set when libcurl opens a connection: a reused one keeps what it was opened with.
            try handle.set(CURLOPT_TCP_KEEPALIVE, true)
            try handle.set(CURLOPT_TCP_KEEPIDLE, keepAlive.idleSeconds)
            try handle.set(CURLOPT_TCP_KEEPINTVL, keepAlive.intervalSeconds)
        }
        if let overrides = options.hostOverrides { try handle.set(CURLOPT_CONNECT_TO, headers: try overrides.curlList()) }
        if !options.table.connectsByDefault { try configureConnecting(options.table) }
        if options.table.sendsPathAsIs { try handle.set(CURLOPT_PATH_AS_IS, true) }
        if plan.isHTTPS {
            // Transfers starting together wait to share the first connection if it speaks HTTP/2.
            try handle.set(CURLOPT_PIPEWAIT, true)
        }

        // Only http and https. Redirects are followed by CurlTransport, one transfer per hop, so
        // that credentials can be dropped when a redirect changes origin (scheme, host or port).
        try handle.set(CURLOPT_PROTOCOLS_STR, "http,https")
        if progress != nil {
            try handle.set(CURLOPT_NOPROGRESS, false)
            try handle.setProgressCallback(curlReportProgress)
            try handle.set(CURLOPT_XFERINFODATA, pointer: context)
        }

        // TLS: verification is always on; pinning adds to it, never replaces it.
        try handle.set(CURLOPT_SSL_VERIFYPEER, true)
        try handle.set(CURLOPT_SSL_VERIFYHOST, 2)
        if let tls = options.tls {
            try configureTLS(tls)
        } else {
            try handle.set(CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2)
        }
        if let bundle = options.trustedCertificates {
            try handle.set(CURLOPT_CAINFO, bundle.path)
        }
        if let clientIdentity { try configureClientCertificate(clientIdentity) }
        if pinning != nil || options.tls?.trustCallback != nil {
            // Pins and the trust callback run inside the handshake, by a verifier on each new
            // connection's SSL_CTX: only safe when libcurl runs on the OpenSSL this library was
            // linked against, so fail closed.
            if let problem = options.tlsBackendProblem {
                let host = plan.origin.url.host ?? ""
                let what = !(pinning?.rules(forHost: host).isEmpty ?? true) ? " is pinned"
                    : options.tls?.trustCallback != nil ? " has a serverTrust callback" : nil
                if let what {
                    throw .invalidCertificate(.init(request: plan.redactedDescription,
                                                    reason: host + what + ", but " + problem + "; the request was not sent"))
                }
            } else {
                try handle.set(CURLOPT_SSL_CTX_FUNCTION, sslContextCallback: curlRequirePins)
                try handle.set(CURLOPT_SSL_CTX_DATA, pointer: context)
            }
        }

        try configureRouting(options)
        if let challenge = plan.challenge { try configureChallenge(challenge) }
        if options.cookieJar != nil {
            // Turns libcurl's cookie engine on (an empty name reads no file); the engine attaches the jar's share.
            try handle.set(CURLOPT_COOKIEFILE, "")
        }
        try configureMethod(plan)
    }

    private func configureMethod(_ plan: TransferPlan) throws(NetworkError) {
        switch plan.methodForm {
        case .get: try handle.set(CURLOPT_HTTPGET, true)
        case .head: try handle.set(CURLOPT_NOBODY, true)
        case .post: try handle.set(CURLOPT_POST, true)
        case .custom(let name): try handle.set(CURLOPT_CUSTOMREQUEST, name)
        }
        if let body = plan.body { try configureBody(body) }
    }

    private func configureBody(_ body: PreparedBody) throws(NetworkError) {
        switch body {
        case .bytes(let data):
            // libcurl copies the bytes (CURLOPT_COPYPOSTFIELDS), so they need not stay pinned.
            try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(data.count))
            try handle.setCopiedBody(data)
        case .file(let url, let size):
            // Without a read function libcurl freads CURLOPT_READDATA: the file streams from disk.
            guard let file = fopen(url.path, "rb") else {
                throw .invalidRequest(.init(request: plan.redactedDescription,
                                            reason: "the file to upload, \(url.path), could not be opened"))
            }
            uploadFile = file
            try handle.set(CURLOPT_POST, true)  // a body, whatever the verb (CUSTOMREQUEST names it)
            try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: size)
            try handle.set(CURLOPT_READDATA, pointer: UnsafeMutableRawPointer(file))
        case .multipart(let form):
            let mime = try CurlMime(form, for: handle)
            self.mime = mime
            try handle.set(CURLOPT_MIMEPOST, pointer: UnsafeMutableRawPointer(mime.raw))
        case .stream(let upload) where upload.length == 0:
            // libcurl reads nothing for an empty body: CurlTransport checked the sequence is empty.
            try configureBody(.bytes(Data()))
        case .stream(let upload):
            try configureUpload(upload)
            self.upload = upload
        }
    }

    // MARK: Receiving (engine thread)

    /// Stores a piece of the body; `false` stops the transfer.
    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if stream != nil { return receiveStreamed(bytes) }
        return receiveWhole(bytes) ? bytes.count : 0
    }

    /// Something arrived or went: the idle timeout counts again from now. Out of line, and called
    /// only with an idle timeout (making a `ContinuousClock.Instant` looks up metadata).
    @inline(never)
    func restartIdleTimeout() {
        if let idleTimeout { streamDeadline = .now + idleTimeout }
    }

    func countReceived(_ count: Int) -> Bool {
        bytesReceived += Int64(count)
        if let maximumResponseSize, bytesReceived > maximumResponseSize {
            exceededMaximumSize = true
            return false
        }
        return true
    }

    private func receiveWhole(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if idleTimeout != nil { restartIdleTimeout() }
        bytesReceived += Int64(bytes.count)
        if let maximumResponseSize, bytesReceived > maximumResponseSize {
            exceededMaximumSize = true
            return false
        }
        if headerBlock.isContentEncoded, bytesReceived > decompressionLimit.floor {
            let compressed = handle.offset(CURLINFO_SIZE_DOWNLOAD_T) ?? 0
            if decompressionLimit.isExceeded(decoded: bytesReceived, compressed: compressed) {
                exceededDecompressionLimit = (bytesReceived, compressed)
                return false
            }
        }
        if let downloadFile {
            guard fwrite(bytes.baseAddress, 1, bytes.count, downloadFile) == bytes.count else {
                diskWriteErrno = errno
                return false
            }
            return true
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Passes progress on, at most every 100 ms; body bytes sent move the idle deadline on.
    fileprivate func reportProgress(received: Int64, expected: Int64, sent: Int64, toSend: Int64) {
        if let idleTimeout, sent > bytesSentSoFar {
            bytesSentSoFar = sent
            streamDeadline = .now + idleTimeout
        }
        guard let progress else { return }
        let now = ContinuousClock.now
        if let last = lastProgressReport, now - last < .milliseconds(100) { return }
        lastProgressReport = now
        progress.report(TransferProgress(bytesSent: sent, totalBytesToSend: toSend > 0 ? toSend : plan.bodyCount,
                                         bytesReceived: priorBytes + received,
                                         totalBytesExpected: expected > 0 ? priorBytes + expected : nil))
    }

    /// Keeps one header line; `false` stops a response whose headers are malformed in ways libcurl
    /// lets through.
    fileprivate func receiveHeaderLine(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        if idleTimeout != nil { restartIdleTimeout() }
        // Another block (trailers, or the next response of an authentication) may not change the
        // head that was ready: it goes now.
        if headReady, !headDelivered { deliverHead() }
        switch headerBlock.receive(line) {
        case .accepted:
            // The blank line that ends a block: a stream's head goes to its caller now; a
            // download learns what the body it writes is.
            guard Self.isBlankLine(line) else { return true }
            if headerBlock.isContentEncoded, stream == nil, isFinalResponse { passUndecodableBodyThrough() }
            if download != nil, !downloadHeadersComplete() { return false }
            if challenge != nil, !challengeHeadersComplete() { return false }
            if events != nil { emitHeadersReceived() }
            return endOfHeaderBlock()
        case .malformed(let reason):
            malformedResponse = reason
            return false
        case .announcedLength(let length):
            if downloadFile == nil, stream == nil, length > 0 {
                // Room for the announced body up front, within reason: the claim comes from the server.
                body.reserveCapacity(min(length, maximumResponseSize ?? Self.reservationCap, Self.reservationCap))
            }
            return true
        }
    }

    /// See ``CurlEasyHandle/quarantineLastStoredHeader(of:)``.
    func quarantineLastStoredHeader() -> Bool {
        handle.quarantineLastStoredHeader(of: headerBlock)
    }

    /// A body whose `Content-Encoding` this libcurl cannot decode is passed on as it came (libcurl
    /// would fail with CURLE_BAD_CONTENT_ENCODING). Decoding is turned off for this transfer only: the
    /// handle is reset before its next one. Engine thread, at the end of the header block.
    private func passUndecodableBodyThrough() {
        let codings = ResponseHeaders(raw: headerBlock.bytes).values(for: "Content-Encoding")
        guard !Self.libcurlDecodes(codings), (try? handle.set(CURLOPT_HTTP_CONTENT_DECODING, false)) != nil else { return }
        handle.baseline = nil
    }

    /// Whether libcurl decodes every coding the `Content-Encoding` lines name.
    static func libcurlDecodes(_ lines: [String]) -> Bool {
        lines.allSatisfy { line in
            line.split(separator: ",").allSatisfy { member in
                let name = member.trimmingCharacters(in: CharacterSet(charactersIn: " \t")).lowercased()
                return name.isEmpty || decodableCodings.contains(name)
            }
        }
    }

    /// The codings libcurl takes: those it decodes, `x-gzip` with `gzip`, `identity` and `none`.
    static let decodableCodings: Set<String> = {
        var codings = Set(TransferPlan.decodedCodings + ["identity", "none"])
        if codings.contains("gzip") { codings.insert("x-gzip") }
        return codings
    }()

    /// Whether the header block just ended is the final response's, not an interim (1xx) one's.
    var isFinalResponse: Bool { (handle.long(CURLINFO_RESPONSE_CODE) ?? 200) >= 200 }

    /// The end of a download's header block: the validator is recorded for a later resume; a resumed
    /// attempt checks for 206 from the offset or 200 (the file starts over). `false` stops the transfer.
    private func downloadHeadersComplete() -> Bool {
        guard let download, let downloadFile, let status = handle.long(CURLINFO_RESPONSE_CODE),
              (200..<300).contains(status) else { return true }  // 1xx, a redirect's 3xx, a failure: nothing to continue
        let headers = ResponseHeaders(raw: headerBlock.bytes)
        let etag = headers.value(for: "ETag").flatMap { $0.hasPrefix("W/") ? nil : $0 }  // If-Range needs a strong validator
        download.record(validator: etag ?? headers.value(for: "Last-Modified"))
        guard priorBytes > 0 else { return true }
        if status == 206 {
            // "bytes <first>-<last>/<length>": the first byte must be the one asked for.
            let range = headers.value(for: "Content-Range") ?? ""
            let first = range.hasPrefix("bytes ") ? Int64(range.dropFirst(6).prefix { $0 != "-" }) : nil
            guard first == priorBytes else {
                malformedResponse = "the server resumed the download at \"\(HeaderFields.printable(range))\", not at byte \(priorBytes) as asked"
                return false
            }
            return true
        }
        guard ftruncate(fileno(downloadFile), 0) == 0 else {
            diskWriteErrno = errno
            return false
        }
        download.restart()
        priorBytes = 0
        return true
    }

    /// The most a server's `Content-Length` alone makes a transfer reserve (address space: pages
    /// become resident only as bytes arrive); a response size limit caps it lower.
    private static let reservationCap = 256 << 20

    // MARK: Pinning (engine thread, inside the handshake)

    /// Installs the pin verifier on a new connection's SSL_CTX when its host is pinned or the TLS
    /// options have a trust callback. Enforced rules' pins refuse a mismatch; when none is
    /// enforced, the report-only (or expired) rules' pins are only compared, for the reports.
    /// A handshake of another handle (a DNS over HTTPS lookup libcurl makes for this transfer, which
    /// inherits the callback) is the resolver's: the origin's pins and trust callback are not its.
    fileprivate func requirePins(on sslContext: UnsafeMutableRawPointer, for curl: UnsafeMutableRawPointer?) -> CURLcode {
        guard let pinCheck, curl == handle.raw else { return CURLE_OK }
        // After a redirect the effective URL is the one this connection is for.
        let host = handle.string(CURLINFO_EFFECTIVE_URL).flatMap { URL(string: $0)?.host } ?? plan.origin.url.host ?? ""
        let now = Date()
        coveringRules = pinning?.rules(forHost: host) ?? []
        var pins = coveringRules.filter { $0.isEnforced(at: now) }.flatMap(\.pins)
        let enforced = !pins.isEmpty
        if !enforced { pins = coveringRules.flatMap(\.pins) }
        // Through an HTTPS proxy this runs for the proxy's handshake too: the pins are the origin's.
        let bareHost = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard nl_pin_check_set_host(pinCheck, bareHost) == 1 else { return CURLE_OUT_OF_MEMORY }
        var digests: [UInt8] = []
        digests.reserveCapacity(pins.count * Int(NL_PIN_LENGTH))
        for pin in pins { digests += pin.sha256 }
        guard nl_pin_check_set_pins(pinCheck, digests, Int32(pins.count)) == 1 else { return CURLE_OUT_OF_MEMORY }
        nl_pin_check_set_enforced(pinCheck, enforced ? 1 : 0)
        let trusts = options.tls?.trustCallback != nil
        guard !coveringRules.isEmpty || trusts else { return CURLE_OK }  // an unpinned host: normal verification only
        pinnedHost = host
        trustRejection = nil
        nl_pin_check_set_hook(pinCheck, curlAfterPins, Unmanaged.passUnretained(self).toOpaque())
        nl_ssl_ctx_require_pins(sslContext, pinCheck)
        return CURLE_OK
    }

    /// In the handshake, once the pins were compared (`allowed`: they let the chain through):
    /// reports what the rules saw, then asks the trust callback. Answers whether the handshake goes on.
    fileprivate func afterPins(chain: UnsafeRawPointer, allowed: Bool) -> Bool {
        let host = pinnedHost ?? plan.origin.url.host ?? ""
        if let pinning, !coveringRules.isEmpty {
            let port = plan.origin.url.port ?? (plan.origin.url.scheme?.lowercased() == "https" ? 443 : 80)
            pinning.observe(chain: chain, host: PinningConfiguration.normalized(host), port: port, rules: coveringRules, now: Date())
        }
        guard allowed, let trust = options.tls?.trustCallback else { return allowed }
        switch trust.decide(chain: chain, within: options.connectTimeout ?? 300) {
        case .accept:
            return true
        case .reject(let reason):
            trustRejection = reason
            return false
        }
    }

    private var presentedPins: [String] {
        guard let pinCheck else { return [] }
        return (0..<nl_pin_check_presented_count(pinCheck)).compactMap { index in
            nl_pin_check_presented(pinCheck, index).map {
                PublicKeyPin(digest: Data(bytes: $0, count: Int(NL_PIN_LENGTH))).description
            }
        }
    }

    /// Writes what stdio holds of a download to its file. Once the handle is out of the engine (no
    /// write callback follows), from the task that awaited it.
    func flushDownload() {
        if let downloadFile { fflush(downloadFile) }
    }

    func result(for code: CURLcode) -> Result<HTTPResponse, NetworkError> {
        if let failure = failure(for: code) { return .failure(failure) }
        let metrics = self.metrics()
        reportLastProgress(metrics)
        if let failure = proxyAuthenticationFailure(status: handle.long(CURLINFO_RESPONSE_CODE) ?? 0) { return .failure(failure) }
        // The response owns the body: the transfer (alive until the engine lets go) keeps none of it.
        var delivered = Data()
        swap(&delivered, &body)
        if let events { events.emit(.responseBodyEnd(bytes: bytesReceived)) }
        return .success(response(body: delivered, metrics: metrics))
    }

    /// What ``result(for:)`` says of a stream's end, without the response it would build (a
    /// stream's response is its head, see ``takeHead()``): the failure, or `nil`.
    func streamFailure(for code: CURLcode) -> NetworkError? {
        if let failure = failure(for: code) { return failure }
        if progress != nil { reportLastProgress(metrics()) }
        let failure = proxyAuthenticationFailure(status: handle.long(CURLINFO_RESPONSE_CODE) ?? 0)
        if let events, failure == nil { events.emit(.responseBodyEnd(bytes: bytesReceived)) }
        return failure
    }

    /// Why the transfer that ended with `code` failed, or `nil` when it did not.
    private func failure(for code: CURLcode) -> NetworkError? {
        if let failure = uploadFailure(for: code) { return failure }
        if let failure = challengeLoopFailure() { return failure }
        if code != CURLE_OK || malformedResponse != nil || exceededMaximumSize || exceededDecompressionLimit != nil {
            // The download's bytes are in the file before anyone looks at it (a resume continues from its size).
            if let downloadFile { fflush(downloadFile) }
            return CurlErrorMapping.error(for: code, message: handle.message(for: code), facts: facts(for: code), plan: plan)
        }
        if let downloadFile, fflush(downloadFile) != 0 {
            return CurlErrorMapping.diskWriteFailure(String(cString: strerror(errno)), plan: plan)
        }
        return nil
    }

    private func reportLastProgress(_ metrics: TransferMetrics) {
        progress?.report(TransferProgress(bytesSent: metrics.bytesSent, totalBytesToSend: plan.bodyCount ?? metrics.bytesSent,
                                          bytesReceived: priorBytes + bytesReceived, totalBytesExpected: priorBytes + bytesReceived))
    }

    func response(body: Data, metrics: TransferMetrics) -> HTTPResponse {
        // Redirects are separate transfers, so the effective URL is the request's own.
        let status = handle.long(CURLINFO_RESPONSE_CODE) ?? 0
        return HTTPResponse(statusCode: status, headers: ResponseHeaders(raw: headerBlock.bytes),
                            body: body, isMocked: false,
                            origin: plan.origin,
                            expectations: plan.expectations, metrics: metrics,
                            redirectLocation: (300..<400).contains(status) ? handle.string(CURLINFO_REDIRECT_URL) : nil)
    }

    /// What this transfer observed that the code alone does not say, for ``CurlErrorMapping``.
    private func facts(for code: CURLcode) -> CurlErrorMapping.Facts {
        var facts = CurlErrorMapping.Facts(malformedResponse: malformedResponse, maximumResponseSize: maximumResponseSize,
                                           exceededMaximumSize: exceededMaximumSize)
        // libcurl itself refuses a continuation line right after the first status line, before the
        // header callback sees it; and reports a line of the head over its limit as out of memory.
        facts.foldAfterStatusLine = code == CURLE_BAD_FUNCTION_ARGUMENT && headerBlock.isRightAfterStatusLine
        facts.headLineTooLong = code == CURLE_OUT_OF_MEMORY && headerBlock.isInHead
        if let exceeded = exceededDecompressionLimit {
            facts.decompressionBomb = (decompressionLimit, exceeded.decoded, exceeded.compressed)
        }
        if code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CONNECT_ERROR, let pinCheck,
           nl_pin_check_outcome(pinCheck) == NL_PIN_MISMATCH {
            facts.pinMismatch = (pinnedHost ?? plan.origin.url.host ?? "the server", presentedPins)
        }
        if code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CONNECT_ERROR, let pinCheck, let trustRejection,
           nl_pin_check_outcome(pinCheck) == NL_PIN_HOOK_REJECTED {
            facts.trustRejection = (pinnedHost ?? plan.origin.url.host ?? "the server", trustRejection)
        }
        if code == CURLE_WRITE_ERROR, downloadFile != nil {
            facts.diskWriteFailure = String(cString: strerror(diskWriteErrno))
        }
        if code == CURLE_OUT_OF_MEMORY {
            facts.connected = handle.offset(CURLINFO_CONNECT_TIME_T) != 0
        }
        if code == CURLE_OPERATION_TIMEDOUT {
            facts.connected = handle.offset(CURLINFO_CONNECT_TIME_T) != 0
            facts.connectTimeout = options.connectTimeout
            facts.idleTimeout = stream == nil ? options.idleTimeout : nil
        }
        addRoutingFacts(to: &facts, for: code)
        facts.presentedClientCertificate = clientIdentity != nil
        facts.tls = options.tls
        facts.networkInterface = options.table.networkInterface
        facts.dnsOverHTTPS = options.table.dnsOverHTTPS
        facts.receivedNothing = (handle.long(CURLINFO_HEADER_SIZE) ?? 0) == 0
        return facts
    }

    func metrics() -> TransferMetrics {
        func duration(_ info: CURLINFO) -> Duration { .microseconds(handle.offset(info) ?? 0) }
        let version: String
        switch handle.long(CURLINFO_HTTP_VERSION) ?? 0 {
        case CURL_HTTP_VERSION_1_0: version = "HTTP/1.0"
        case CURL_HTTP_VERSION_2_0: version = "HTTP/2"
        case CURL_HTTP_VERSION_3: version = "HTTP/3"
        default: version = "HTTP/1.1"
        }
        // libcurl sets the application-connect time (at least 1 µs) only on a TLS connection.
        let appConnect = duration(CURLINFO_APPCONNECT_TIME_T)
        let connect = duration(CURLINFO_CONNECT_TIME_T)
        return TransferMetrics(nameLookup: duration(CURLINFO_NAMELOOKUP_TIME_T), connect: connect,
                               tlsHandshake: appConnect.nonZero ?? connect,
                               firstByte: duration(CURLINFO_STARTTRANSFER_TIME_T), total: duration(CURLINFO_TOTAL_TIME_T),
                               httpVersion: version, remoteAddress: handle.string(CURLINFO_PRIMARY_IP),
                               bytesSent: handle.offset(CURLINFO_SIZE_UPLOAD_T) ?? 0, bytesReceived: bytesReceived,
                               usedTLS: appConnect > .zero)
    }
}

// The C callbacks get their transfer back from the opaque pointer set in `configure`. The engine
// keeps the transfer alive while libcurl may call them (in `active` until the handle is removed
// from the multi handle), which is why the callbacks may use `_withUnsafeGuaranteedRef` (safe
// only while something else keeps the transfer alive) instead of `takeUnretainedValue()`.

private let curlWriteBody: curl_write_callback = { data, size, count, context in
    let length = size * count
    guard let data, let context else { return 0 }  // 0 for a non-empty chunk aborts the transfer
    return Unmanaged<CurlTransfer>.fromOpaque(context)._withUnsafeGuaranteedRef {
        $0.receiveBody(UnsafeRawBufferPointer(start: data, count: length))
    }
}

let curlReportProgress: curl_xferinfo_callback = { context, downloadTotal, downloadNow, uploadTotal, uploadNow in
    guard let context else { return 0 }
    Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        .reportProgress(received: Int64(downloadNow), expected: Int64(downloadTotal), sent: Int64(uploadNow), toSend: Int64(uploadTotal))
    return 0
}

private let curlAfterPins: nl_pin_hook = { context, chain, allowed in
    guard let context, let chain else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().afterPins(chain: chain, allowed: allowed != 0) ? 1 : 0
}

private let curlRequirePins: curl_ssl_ctx_callback = { curl, sslContext, context in
    guard let sslContext, let context else { return CURLE_SSL_ENGINE_INITFAILED }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().requirePins(on: sslContext, for: curl)
}

private let curlReceiveHeader: curl_write_callback = { data, size, count, context in
    let length = size * count
    guard let data, let context else { return 0 }  // 0 for a non-empty chunk aborts the transfer
    let bytes = UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self)
    return Unmanaged<CurlTransfer>.fromOpaque(context)._withUnsafeGuaranteedRef {
        $0.receiveHeaderLine(UnsafeBufferPointer(start: bytes, count: length))
    } ? length : 0
}

extension Duration {
    /// `nil` for zero: a step that did not happen.
    fileprivate var nonZero: Duration? { self == .zero ? nil : self }
}
