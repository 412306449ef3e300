internal import CNetworkLayerCurl
import Foundation

/// Owns one libcurl easy handle and its error buffer; frees both in `deinit`.
///
/// Every setter turns a failure into a ``NetworkError``.
// @unchecked Sendable: a handle is used by one thread at a time. The thread that submits a request
// configures it; the engine thread then owns it until the transfer ends and it goes back to the
// pool. Each hand-over passes through a lock (the engine's inbox or the pool), which orders the
// accesses.
final class CurlEasyHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// How many times libcurl sent the current transfer's request: one, unless it retried on a
    /// fresh connection after a reused one died (see ``mustResetBeforeReuse``). Counted by the
    /// CURLOPT_PREREQFUNCTION every configuration sets; zeroed when a transfer is configured.
    let requestsSent: UnsafeMutablePointer<CLong>
    /// The header libcurl points to past the last transfer, quarantined (CurlEasyHandle+HeaderQuarantine.swift).
    var quarantinedHeader: UnsafeMutableRawPointer?
    /// The `CURLOPT_RESOLVE` list last set, which libcurl reads at each transfer's start: held until
    /// another replaces it. A transfer that sets one leaves no baseline, so the handle is reset
    /// (the option cleared) before it is reused.
    var resolveList: CurlHeaderList?

    init() throws(NetworkError) {
        try CurlGlobal.initialise()
        guard let raw = curl_easy_init() else {
            throw .transport(.init(reason: "libcurl could not create a transfer handle (curl_easy_init failed)"))
        }
        self.raw = raw
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
        requestsSent = .allocate(capacity: 1)
        requestsSent.initialize(to: 0)
    }

    deinit {
        curl_easy_cleanup(raw)
        // libcurl has freed every header it stored: a quarantined one goes now.
        if let quarantinedHeader { nl_release_quarantined_header(raw, quarantinedHeader) }
        errorBuffer.deallocate()
        requestsSent.deallocate()
    }

    /// Whether the options must go before the pool hands this handle out again, although a plain
    /// transfer set them. libcurl 7.88 counts the retries on a dead reused connection per handle,
    /// not per transfer (curl 8.17 fixed it, curl#18926): after five over a handle's life, the
    /// next retry fails as "Connection died, tried 5 times". Only `curl_easy_reset` zeroes that
    /// count, so a handle that retried is reset, and no transfer inherits another's retries.
    var mustResetBeforeReuse: Bool {
        !hasBaseline || requestsSent.pointee > 1
    }

    /// How the options were set since the last reset, when a plain transfer set them; `nil` for a
    /// fresh or reset handle. Unchecked: one thread at a time uses a handle (see above).
    @exclusivity(unchecked) var baseline: CurlTransfer.Baseline? {
        didSet { hasBaseline = baseline != nil }
    }
    /// Whether a plain transfer set the options (see ``baseline``).
    @exclusivity(unchecked) private(set) var hasBaseline = false

    /// Whether the options were set by a plain transfer with this baseline, compared in place.
    func keepsBaseline(_ options: TransferOptions, isHTTPS: Bool, streams: Bool, events: Bool, clientIdentity: Int) -> Bool {
        hasBaseline && baseline?.matches(options, isHTTPS: isHTTPS, streams: streams, events: events, clientIdentity: clientIdentity) == true
    }
    /// The `CURLOPT_MAXAGE_CONN` this handle has, `nil` for libcurl's default (118 s). Engine thread.
    private var maximumConnectionAge: Int?

    /// Clears every option (connections stay in the multi handle's cache) and re-arms the error buffer.
    func reset() {
        // libcurl 7.88's reset leaks CURLOPT_COOKIEFILE's list: clearing the option first frees it.
        // The cookies live in the jar's share, detached by now.
        _ = nl_easy_setopt_pointer(raw, CURLOPT_COOKIEFILE, nil)
        curl_easy_reset(raw)
        errorBuffer[0] = 0
        baseline = nil
        maximumConnectionAge = nil
    }

    /// Sets `CURLOPT_MAXAGE_CONN` in whole seconds; `nil` for libcurl's 118 s.
    func setMaximumConnectionAge(_ seconds: Int?) {
        guard seconds != maximumConnectionAge else { return }
        _ = nl_easy_setopt_long(raw, CURLOPT_MAXAGE_CONN, seconds ?? 118)
        maximumConnectionAge = seconds
    }

    /// Empties the error buffer, for a transfer on a handle that keeps its options.
    func clearErrorBuffer() {
        errorBuffer[0] = 0
    }

    /// libcurl's message for the last failure: the error buffer, or the generic text for `code`.
    func message(for code: CURLcode) -> String {
        errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
    }

    // MARK: Options

    func set(_ option: CURLoption, _ value: Int) throws(NetworkError) {
        try check(nl_easy_setopt_long(raw, option, value), option)
    }

    func set(_ option: CURLoption, _ value: Bool) throws(NetworkError) {
        try check(nl_easy_setopt_long(raw, option, value ? 1 : 0), option)
    }

    func set(_ option: CURLoption, offset value: Int64) throws(NetworkError) {
        try check(nl_easy_setopt_offset(raw, option, curl_off_t(value)), option)
    }

    /// libcurl copies strings it is given, so `value` need not outlive the call.
    func set(_ option: CURLoption, _ value: String) throws(NetworkError) {
        try check(nl_easy_setopt_string(raw, option, value), option)
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws(NetworkError) {
        try check(nl_easy_setopt_pointer(raw, option, value), option)
    }

    func set(_ option: CURLoption, headers: CurlHeaderList?) throws(NetworkError) {
        try check(nl_easy_setopt_slist(raw, option, headers?.raw), option)
    }

    func set(_ option: CURLoption, callback: curl_write_callback) throws(NetworkError) {
        try check(nl_easy_setopt_data_callback(raw, option, callback), option)
    }

    /// CURLOPT_XFERINFOFUNCTION, whose callback type needs a forwarder of its own.
    func setProgressCallback(_ callback: curl_xferinfo_callback) throws(NetworkError) {
        try check(nl_easy_setopt_xferinfo_callback(raw, callback), CURLOPT_XFERINFOFUNCTION)
    }

    func set(_ option: CURLoption, sslContextCallback: curl_ssl_ctx_callback) throws(NetworkError) {
        try check(nl_easy_setopt_ssl_ctx_callback(raw, sslContextCallback), option)
    }

    /// CURLOPT_PREREQFUNCTION, whose callback type needs a forwarder of its own.
    func setPrerequestCallback(_ callback: curl_prereq_callback) throws(NetworkError) {
        try check(nl_easy_setopt_prereq_callback(raw, callback), CURLOPT_PREREQFUNCTION)
    }

    /// CURLOPT_SEEKFUNCTION, whose callback type needs a forwarder of its own.
    func setSeekCallback(_ callback: curl_seek_callback) throws(NetworkError) {
        try check(nl_easy_setopt_seek_callback(raw, callback), CURLOPT_SEEKFUNCTION)
    }

    /// Sets a `curl_blob` option (`CURLOPT_SSLCERT_BLOB`…) with `CURL_BLOB_COPY`: libcurl copies
    /// the bytes, so `data` need not outlive the call. `data` must not be empty.
    func set(_ option: CURLoption, blob data: [UInt8]) throws(NetworkError) {
        let code = data.withUnsafeBytes { bytes -> CURLcode in
            var blob = curl_blob(data: UnsafeMutableRawPointer(mutating: bytes.baseAddress), len: bytes.count,
                                 flags: UInt32(CURL_BLOB_COPY))
            return withUnsafeMutablePointer(to: &blob) { nl_easy_setopt_pointer(raw, option, $0) }
        }
        try check(code, option)
    }

    /// Sets the request body with `CURLOPT_COPYPOSTFIELDS`: libcurl copies the bytes, so `body`
    /// need not outlive the call. Set `CURLOPT_POSTFIELDSIZE_LARGE` first.
    func setCopiedBody(_ body: Data) throws(NetworkError) {
        var empty: UInt8 = 0  // an empty body still needs a valid pointer
        let code = body.withUnsafeBytes { bytes in
            withUnsafeMutablePointer(to: &empty) { emptyPointer in
                let start = bytes.baseAddress.map(UnsafeMutableRawPointer.init(mutating:)) ?? UnsafeMutableRawPointer(emptyPointer)
                return nl_easy_setopt_pointer(raw, CURLOPT_COPYPOSTFIELDS, start)
            }
        }
        try check(code, CURLOPT_COPYPOSTFIELDS)
    }

    /// Installs the error buffer; after every `reset()` too.
    func armErrorBuffer() throws(NetworkError) {
        try check(nl_easy_setopt_pointer(raw, CURLOPT_ERRORBUFFER, errorBuffer), CURLOPT_ERRORBUFFER)
    }

    /// Counts the requests sent into ``requestsSent``, for a transfer that needs no callback of
    /// its own when a request starts (the idle timeout's counts them itself).
    func armRequestCount() throws(NetworkError) {
        try setPrerequestCallback(nl_count_request)
        try set(CURLOPT_PREREQDATA, pointer: UnsafeMutableRawPointer(requestsSent))
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(NetworkError) {
        guard code != CURLE_OK else { return }
        throw .transport(.init(
            reason: "libcurl refused option \(option.rawValue): \(String(cString: curl_easy_strerror(code)))",
            underlyingError: CurlError(code: Int(code.rawValue), message: String(cString: curl_easy_strerror(code)))))
    }

    // MARK: Information

    func long(_ info: CURLINFO) -> Int? {
        var value = 0
        return nl_easy_getinfo_long(raw, info, &value) == CURLE_OK ? value : nil
    }

    func offset(_ info: CURLINFO) -> Int64? {
        var value: curl_off_t = 0
        return nl_easy_getinfo_offset(raw, info, &value) == CURLE_OK ? Int64(value) : nil
    }

    func string(_ info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard nl_easy_getinfo_string(raw, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// A list libcurl hands over, copied and freed; `nil` when libcurl refused. Lines that are not
    /// UTF-8 are read with replacement characters.
    func lines(_ info: CURLINFO) -> [String]? {
        var list: UnsafeMutablePointer<curl_slist>?
        guard nl_easy_getinfo_slist(raw, info, &list) == CURLE_OK else { return nil }
        defer { curl_slist_free_all(list) }
        var lines: [String] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data { lines.append(String(cString: data)) }
            node = current.pointee.next
        }
        return lines
    }
}
