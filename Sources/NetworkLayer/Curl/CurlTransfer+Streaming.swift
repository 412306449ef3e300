internal import CNetworkLayerCurl
import Foundation

// Streaming responses on the engine thread. A streaming transfer differs from a whole one in
// three ways: its response goes to `completion` as soon as the headers are complete (the head),
// with a ``StreamBody`` over `stream`; its body chunks go to `stream`, which pauses the transfer
// (CURL_WRITEFUNC_PAUSE) when the consumer is about 1 MB behind; and its timeout is the engine's
// `streamDeadline` instead of CURLOPT_TIMEOUT, so that it bounds the wait for the headers and
// then the silence between chunks, not the whole stream.
extension CurlTransfer {
    /// libcurl's receive buffer for streams: fewer, larger reads of the socket for a fast stream
    /// (512 KB against 64 KB: 0.43 → 0.31 s of system time for 1 GiB on loopback); a slow one
    /// still gets each chunk as soon as it arrives. libcurl 7.88 hands the body to the write
    /// callback in pieces of at most 16 KB (CURL_MAX_WRITE_SIZE) whatever this size. The buffer
    /// is allocated per stream, but only the pages a read fills become resident: a stream of
    /// small events keeps a few KB of it in memory.
    static let streamBufferSize = 512 << 10

    /// The silence a stream may keep: the request's timeout, `nil` for none.
    var streamTimeout: Duration? {
        // Beyond the ceiling (10⁹ s) a timeout means no limit, as for every request.
        guard request.timeout.isFinite, request.timeout <= PreparedRequest.timeoutCeiling else { return nil }
        return .milliseconds(Int64((request.timeout * 1000).rounded(.up)))
    }

    /// Options only streams get.
    func configureStreaming() throws(NetworkError) {
        // No Accept-Encoding: while a transfer is paused, libcurl 7.88 keeps the whole
        // decompressed rest of the chunk it was delivering in memory, which a small compressed
        // chunk can make arbitrarily large. A stream asks for its body as it is.
        try handle.set(CURLOPT_BUFFERSIZE, Self.streamBufferSize)
        streamDeadline = streamTimeout.map { ContinuousClock.now + $0 }
    }

    /// A body chunk of a stream: handed to the buffer, or the transfer pauses. Returns what the
    /// write callback returns: the length, `CURL_WRITEFUNC_PAUSE`, or 0 to abort.
    func receiveStreamed(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let stream else { return 0 }
        // The body of a redirect, which is delivered when it completes (see endOfHeaderBlock):
        // nobody reads it.
        guard headDelivered else { return countReceived(bytes.count) ? bytes.count : 0 }
        switch stream.offer(bytes) {
        case .accepted:
            // Counted once taken: a paused chunk comes again when the transfer resumes.
            guard countReceived(bytes.count) else { return 0 }
            streamDeadline = streamTimeout.map { ContinuousClock.now + $0 }
            // The reader gets the round's chunks together, with one wake-up, when it ends.
            if !streamDeliveryDue {
                streamDeliveryDue = true
                if let streamEngine { streamEngine.deliverAtEndOfRound(self) } else { stream.deliver() }
            }
            return bytes.count
        case .paused:
            streamDeadline = nil  // waiting for the consumer is not silence
            return Int(CURL_WRITEFUNC_PAUSE)
        case .refused:
            return 0  // the consumer ended the stream; the engine removes the transfer
        }
    }

    /// Whether a header line is the blank line (CRLF or LF) that ends its block.
    static func isBlankLine(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.allSatisfy { $0 == 0x0D || $0 == 0x0A }
    }

    /// The blank line that ends a header block: for a stream, the head of the final response
    /// (not a 1xx, not a proxy's CONNECT answer) goes to `completion` now. A 3xx waits for the
    /// end of its transfer: libcurl resolves its `Location` (CURLINFO_REDIRECT_URL) only then.
    func endOfHeaderBlock() -> Bool {
        guard stream != nil, !headDelivered, let status = handle.long(CURLINFO_RESPONSE_CODE), status >= 200,
              !(300..<400).contains(status) else { return true }
        deliverHead()
        return true
    }

    /// Hands the response so far (status, headers, metrics; its body to come through the
    /// stream) to `completion`, once.
    func deliverHead() {
        guard let stream, !headDelivered else { return }
        headDelivered = true
        streamDeadline = streamTimeout.map { ContinuousClock.now + $0 }
        let completion = self.completion
        self.completion = nil
        // A proxy's 407 to a forwarded request is the proxy's failure, not the stream's head.
        if let failure = proxyAuthenticationFailure(status: handle.long(CURLINFO_RESPONSE_CODE) ?? 0) {
            completion?(.failure(failure))
            return
        }
        var response = response(body: Data(), metrics: metrics())
        response.stream = StreamBody(buffer: stream, origin: request.origin)
        completion?(.success(response))
    }

    /// The engine is about to resume this transfer (`curl_easy_pause(CONT)`): the stream waits
    /// for chunks again, so silence counts from now.
    func willResume() {
        stream?.willResume()
        if stream != nil, streamDeadline == nil {
            streamDeadline = streamTimeout.map { ContinuousClock.now + $0 }
        }
    }

    /// The timeout error of a transfer whose silence deadline passed: a complete response's idle
    /// timeout, or a stream's.
    func silenceError() -> NetworkError {
        guard stream == nil, let idleTimeout else { return streamTimeoutError() }
        return .timeOut(.init(request: request.redactedDescription,
                              reason: "no data for \(idleTimeout.seconds.compactText) s (the idle timeout)"))
    }

    /// The timeout error of a stream whose deadline passed.
    func streamTimeoutError() -> NetworkError {
        let seconds = request.resolved.timeout.compactText
        return .timeOut(.init(request: request.redactedDescription,
                              reason: headDelivered
                                ? "the stream was silent for longer than the timeout of \(seconds) s"
                                : "no response headers within the timeout of \(seconds) s"))
    }
}
