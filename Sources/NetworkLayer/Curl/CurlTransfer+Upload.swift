internal import CNetworkLayerCurl
import Foundation

// Streamed request bodies (``RequestBody/stream(_:length:contentType:)``) on the engine thread.
// libcurl pulls the body through CURLOPT_READFUNCTION from the transfer's ``UploadStream``: bytes
// when some are buffered, CURL_READFUNC_PAUSE when the sequence has not produced the next chunk
// yet (the producer's next chunk resumes the transfer through the engine, as a stream's consumer
// does), the end when the sequence ended, CURL_READFUNC_ABORT when it failed. A known length is
// announced (Content-Length); an unknown one makes libcurl send HTTP/1.1 chunked, HTTP/2 plain
// DATA frames.
extension CurlTransfer {
    /// Takes the body for this transfer and sets the options that send it.
    func configureUpload(_ upload: UploadStream) throws(NetworkError) {
        guard upload.claim() else {
            throw UploadStream.alreadySent(request: plan.redactedDescription)
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        try handle.set(CURLOPT_POST, true)  // a body, whatever the verb (CUSTOMREQUEST names it)
        // -1: unknown, which libcurl sends chunked on HTTP/1.1.
        try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: upload.length ?? -1)
        try handle.set(CURLOPT_READFUNCTION, callback: curlReadBody)
        try handle.set(CURLOPT_READDATA, pointer: context)
        // libcurl rewinds the body to send it again on a new connection when a reused one turned
        // out dead: possible only before any byte was handed over.
        try handle.setSeekCallback(curlSeekBody)
        try handle.set(CURLOPT_SEEKDATA, pointer: context)
    }

    /// What libcurl's read callback returns: a byte count, 0 at the end, or PAUSE / ABORT.
    fileprivate func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let upload else { return Int(CURL_READFUNC_ABORT) }
        switch upload.read(into: buffer) {
        case .bytes(let count): return count
        case .end: return 0
        case .pause: return Int(CURL_READFUNC_PAUSE)
        case .abort: return Int(CURL_READFUNC_ABORT)
        }
    }

    /// The error a failed transfer ends with because of its streamed body: the sequence threw or
    /// broke its declared length, or libcurl needed the body again. `nil` for a transfer that
    /// completed (a server may answer before it read the whole body) and for any other failure.
    func uploadFailure(for code: CURLcode) -> NetworkError? {
        guard let upload, code != CURLE_OK else { return nil }
        if let failure = upload.failure { return upload.error(for: failure, request: plan.redactedDescription) }
        if code == CURLE_SEND_FAIL_REWIND, let challenge {
            return .unauthorizedAccess(.init(request: plan.redactedDescription, reason:
                "the server asked for \(challenge) authentication after part of the streamed body had been sent, and libcurl "
                    + "answers by sending the body again, which a sequence cannot; give the body as data or a file",
                underlyingError: CurlError(code: Int(code.rawValue), message: handle.message(for: code))))
        }
        if code == CURLE_SEND_FAIL_REWIND {
            return .transport(.init(request: plan.redactedDescription, reason:
                "the connection was lost after part of the streamed body had been sent, and a sequence can be sent only once, "
                    + "so the request was not sent again; perform it again with a new sequence",
                underlyingError: CurlError(code: Int(code.rawValue), message: handle.message(for: code))))
        }
        return nil
    }
}

// The transfer comes back from the opaque pointer set in `configureUpload`; the engine keeps it
// alive while libcurl may call these.

private let curlReadBody: curl_read_callback = { buffer, size, count, context in
    guard let buffer, let context else { return Int(CURL_READFUNC_ABORT) }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.readBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
}

private let curlSeekBody: curl_seek_callback = { context, offset, origin in
    guard let context else { return Int32(CURL_SEEKFUNC_FAIL) }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    guard offset == 0, origin == SEEK_SET, transfer.upload?.canRewind() == true else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    return Int32(CURL_SEEKFUNC_OK)
}
