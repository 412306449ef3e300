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

    /// Set by any thread when the request's task or handle is cancelled.
    let isCancellationRequested = Atomic<Bool>(false)

    // Engine thread only, from submission on.
    var completion: (@Sendable (Result<HTTPResponse, NetworkError>) -> Void)?
    private var body = Data()
    private var headers: [(name: String, value: String)] = []

    /// Configures `handle` for `request`. Throws if libcurl refuses an option.
    init(request: PreparedRequest, options: TransferOptions, handle: CurlEasyHandle) throws(NetworkError) {
        self.request = request
        self.handle = handle
        var lines = request.headers
        // No "Expect: 100-continue" round trip before a body: it only adds latency.
        if lines.value(for: "Expect") == nil { lines.append(("Expect", "")) }
        headerList = try CurlHeaderList(lines)
        try configure(options)
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

        if request.timeout.isFinite {
            try handle.set(CURLOPT_TIMEOUT_MS, max(1, Int((request.timeout * 1000).rounded(.up))))
        }
        try configureMethod()
    }

    private func configureMethod() throws(NetworkError) {
        switch request.method {
        case .get:
            try handle.set(CURLOPT_HTTPGET, true)
        case .head:
            try handle.set(CURLOPT_NOBODY, true)
        case .post:
            try handle.set(CURLOPT_POST, true)
            try setBody(request.body ?? Data())
        case .put, .patch:
            try handle.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            try setBody(request.body ?? Data())
        case .delete, .options:
            try handle.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            if let body = request.body { try setBody(body) }
        }
    }

    private func setBody(_ body: Data) throws(NetworkError) {
        try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(body.count))
        try handle.setCopiedBody(body)
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

    /// The outcome once libcurl reports the transfer done with `code`.
    func result(for code: CURLcode) -> Result<HTTPResponse, NetworkError> {
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
                                     requestDescription: request.redactedDescription))
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

private let curlReceiveHeader: curl_write_callback = { data, size, count, context in
    let length = size * count
    guard let data, let context else { return 0 }  // 0 for a non-empty chunk aborts the transfer
    Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        .receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
    return length
}
