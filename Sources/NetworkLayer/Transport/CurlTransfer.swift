internal import CCurl
import Foundation
import Synchronization

/// One request on its way through libcurl: the configured easy handle, the response as it
/// arrives, and who to tell when it is done.
// @unchecked Sendable: the submitting thread configures a transfer in `init`; from the moment it
// is handed to the engine (through the engine's locked inbox) only the engine thread touches its
// mutable state. The one field other threads use, `isCancellationRequested`, is atomic.
final class CurlTransfer: @unchecked Sendable {
    let request: PreparedRequest
    let handle: CurlEasyHandle
    private let headerList: CurlHeaderList
    /// The pins in force when the request started, or `nil` when pinning is off.
    let pinning: PinningConfiguration?
    /// What the pin verifier of this transfer's handshakes requires and saw (`nl_pin_check *`).
    private let pinCheck: OpaquePointer?

    /// Set by any thread when the request's task or handle is cancelled.
    let isCancellationRequested = Atomic<Bool>(false)

    // Engine thread only, from submission on.
    var completion: (@Sendable (Result<HTTPResponse, NetworkError>) -> Void)?
    private var body = Data()
    private var headers: [(name: String, value: String)] = []
    /// The host whose pins the last handshake checked.
    private var pinnedHost: String?
    /// Whether the engine attached the pinned connection cache to this transfer's handle.
    var usesPinnedCache = false
    /// The file streamed as the body, closed in `deinit`.
    private var uploadFile: UnsafeMutablePointer<FILE>?
    /// The multipart body, which libcurl reads while sending.
    private var mime: CurlMime?

    /// Configures `handle` for `request`. Throws if libcurl refuses an option.
    init(request: PreparedRequest, options: TransferOptions, handle: CurlEasyHandle) throws(NetworkError) {
        self.request = request
        self.handle = handle
        pinning = options.pinning
        if pinning != nil {
            guard let check = nl_pin_check_create() else {
                throw .transport(.init(reason: "out of memory for the pin check"))
            }
            pinCheck = check
        } else {
            pinCheck = nil
        }
        // libcurl's own additions we do not want: "Expect: 100-continue" (a round trip of latency
        // before a body) and, for a body without a type, "Content-Type: application/x-www-form-urlencoded".
        var suppressed: [String] = []
        if request.headers.value(for: "Expect") == nil { suppressed.append("Expect") }
        if request.headers.value(for: "Content-Type") == nil, !Self.typesItsOwnBody(request.body) {
            suppressed.append("Content-Type")
        }
        headerList = try CurlHeaderList(request.headers, suppressing: suppressed)
        try configure(options)
    }

    /// Multipart bodies get their `Content-Type` (with the boundary) from libcurl.
    private static func typesItsOwnBody(_ body: PreparedBody?) -> Bool {
        if case .multipart? = body { return true }
        return false
    }

    deinit {
        if let pinCheck { nl_pin_check_free(pinCheck) }
        if let uploadFile { fclose(uploadFile) }
    }

    private func configure(_ options: TransferOptions) throws(NetworkError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try handle.armErrorBuffer()
        try handle.set(CURLOPT_URL, request.url.absoluteString)
        try handle.set(CURLOPT_NOSIGNAL, true)
        try handle.set(CURLOPT_WRITEFUNCTION, callback: curlWriteBody)
        try handle.set(CURLOPT_WRITEDATA, pointer: context)
        try handle.set(CURLOPT_HEADERFUNCTION, callback: curlReceiveHeader)
        try handle.set(CURLOPT_HEADERDATA, pointer: context)
        try handle.set(CURLOPT_HTTPHEADER, headers: headerList)
        try handle.set(CURLOPT_USERAGENT, Self.userAgent)
        try handle.set(CURLOPT_ACCEPT_ENCODING, "")  // every encoding this libcurl can decode
        try handle.set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)

        // Redirects like URLSession: followed, at most 10, and only to http or https.
        try handle.set(CURLOPT_FOLLOWLOCATION, true)
        try handle.set(CURLOPT_MAXREDIRS, 10)
        try handle.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try handle.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")

        // TLS: verification is always on; pinning adds to it, never replaces it.
        try handle.set(CURLOPT_SSL_VERIFYPEER, true)
        try handle.set(CURLOPT_SSL_VERIFYHOST, 2)
        try handle.set(CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2)
        if let bundle = options.customCABundle {
            try handle.set(CURLOPT_CAINFO, bundle.path)
        }
        if let pinning {
            // Pins are checked inside the handshake, by a verifier installed on each new
            // connection's SSL_CTX. Without an OpenSSL backend that cannot happen: fail closed.
            guard CurlEngine.tlsBackendCanPin else {
                let host = request.url.host ?? ""
                guard pinning.pins(forHost: host).isEmpty else {
                    throw .invalidCertificate(.init(
                        request: request.redactedDescription,
                        reason: host + " is pinned, but this libcurl's TLS backend (" + CurlEngine.tlsBackend
                            + ") cannot check pins during the handshake, so the request was not sent"))
                }
                return try configureMethod()
            }
            try handle.set(CURLOPT_SSL_CTX_FUNCTION, sslContextCallback: curlRequirePins)
            try handle.set(CURLOPT_SSL_CTX_DATA, pointer: context)
        }

        if request.timeout.isFinite {
            try handle.set(CURLOPT_TIMEOUT_MS, max(1, Int((request.timeout * 1000).rounded(.up))))
        }
        try configureMethod()
    }

    private func configureMethod() throws(NetworkError) {
        switch request.method {
        case .get:
            try handle.set(CURLOPT_HTTPGET, true)
            if let body = request.body {  // unusual, but some APIs want it (params encoded as .json)
                try handle.set(CURLOPT_CUSTOMREQUEST, "GET")
                try configureBody(body)
            }
        case .head:
            try handle.set(CURLOPT_NOBODY, true)
        case .post:
            try handle.set(CURLOPT_POST, true)
            try configureBody(request.body ?? .bytes(Data()))
        case .put, .patch:
            try handle.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            try configureBody(request.body ?? .bytes(Data()))
        case .delete, .options:
            try handle.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            if let body = request.body { try configureBody(body) }
        }
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
                throw .invalidRequest(.init(request: request.redactedDescription,
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
        }
    }

    static let userAgent: String = {
        let version = curl_version_info(CURLVERSION_TENTH)?.pointee.version.map { String(cString: $0) } ?? "?"
        return "NetworkLayer/1.0 libcurl/\(version)"
    }()

    // MARK: Receiving (engine thread)

    fileprivate func appendBody(_ bytes: UnsafeRawBufferPointer) {
        body.append(contentsOf: bytes)
    }

    fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        var line = bytes[...]
        while let last = line.last, last == 0x0A || last == 0x0D { line = line.dropLast() }
        if line.starts(with: "HTTP/".utf8) {
            // A new status line: a redirect or an interim (1xx) response came before; start over.
            headers.removeAll(keepingCapacity: true)
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = String(decoding: line[..<colon], as: UTF8.self)
        var valueBytes = line[line.index(after: colon)...]
        while let first = valueBytes.first, first == 0x20 || first == 0x09 { valueBytes = valueBytes.dropFirst() }
        while let last = valueBytes.last, last == 0x20 || last == 0x09 { valueBytes = valueBytes.dropLast() }
        let value = String(decoding: valueBytes, as: UTF8.self)
        headers.append((name, value))
        if name.caseInsensitiveCompare("Content-Length") == .orderedSame, let length = Int(value), length > 0 {
            // Room for the announced body up front, within reason: the claim comes from the server.
            body.reserveCapacity(min(length, 64 << 20))
        }
    }

    // MARK: Pinning (engine thread, inside the handshake)

    /// Installs the pin verifier on a new connection's SSL_CTX when its host is pinned.
    fileprivate func requirePins(on sslContext: UnsafeMutableRawPointer) -> CURLcode {
        guard let pinning, let pinCheck else { return CURLE_OK }
        // After a redirect the effective URL is the one this connection is for.
        let host = handle.string(CURLINFO_EFFECTIVE_URL).flatMap { URL(string: $0)?.host } ?? request.url.host ?? ""
        let pins = pinning.pins(forHost: host)
        var digests: [UInt8] = []
        digests.reserveCapacity(pins.count * Int(NL_PIN_LENGTH))
        for pin in pins { digests += pin.sha256 }
        guard nl_pin_check_set_pins(pinCheck, digests, Int32(pins.count)) == 1 else { return CURLE_OUT_OF_MEMORY }
        guard !pins.isEmpty else { return CURLE_OK }  // an unpinned host: normal verification only
        pinnedHost = host
        nl_ssl_ctx_require_pins(sslContext, pinCheck)
        return CURLE_OK
    }

    /// The `sha256/...` pins of the chain the last refused handshake presented.
    private var presentedPins: [String] {
        guard let pinCheck else { return [] }
        return (0..<nl_pin_check_presented_count(pinCheck)).compactMap { index in
            nl_pin_check_presented(pinCheck, index).map {
                PublicKeyPin(digest: Data(bytes: $0, count: Int(NL_PIN_LENGTH))).description
            }
        }
    }

    /// The outcome once libcurl reports the transfer done with `code`.
    func result(for code: CURLcode) -> Result<HTTPResponse, NetworkError> {
        if code == CURLE_PEER_FAILED_VERIFICATION, let pinCheck, nl_pin_check_outcome(pinCheck) == NL_PIN_MISMATCH {
            let host = pinnedHost ?? request.url.host ?? "the server"
            return .failure(.invalidCertificate(.init(
                request: request.redactedDescription,
                reason: "no public key in the certificate chain of \(host) matches its pins; the server presented "
                    + presentedPins.joined(separator: ", ") + ". Nothing was sent",
                underlyingError: CurlError(code: Int(code.rawValue), message: handle.message(for: code)))))
        }
        guard code == CURLE_OK else {
            return .failure(CurlErrorMapping.error(for: code, message: handle.message(for: code), request: request))
        }
        var merged: [String: String] = [:]
        merged.reserveCapacity(headers.count)
        for (name, value) in headers {
            if let existing = merged[name] { merged[name] = existing + ", " + value } else { merged[name] = value }
        }
        let url = handle.string(CURLINFO_EFFECTIVE_URL).flatMap(URL.init(string:)) ?? request.url
        return .success(HTTPResponse(statusCode: handle.long(CURLINFO_RESPONSE_CODE) ?? 0, headers: merged,
                                     body: body, url: url, isMocked: false,
                                     requestDescription: request.redactedDescription,
                                    expectations: request.snapshot.expectations))
    }
}

// The C callbacks get their transfer back from the opaque pointer set in `configure`. The engine
// keeps the transfer alive while libcurl may call them.

private let curlWriteBody: curl_write_callback = { data, size, count, context in
    let length = size * count
    guard let data, let context else { return 0 }  // 0 for a non-empty chunk aborts the transfer
    Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        .appendBody(UnsafeRawBufferPointer(start: data, count: length))
    return length
}

private let curlRequirePins: curl_ssl_ctx_callback = { _, sslContext, context in
    guard let sslContext, let context else { return CURLE_SSL_ENGINE_INITFAILED }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().requirePins(on: sslContext)
}

private let curlReceiveHeader: curl_write_callback = { data, size, count, context in
    let length = size * count
    guard let data, let context else { return 0 }  // 0 for a non-empty chunk aborts the transfer
    Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        .receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
    return length
}
