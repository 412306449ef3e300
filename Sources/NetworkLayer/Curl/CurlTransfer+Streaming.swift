internal import CNetworkLayerCurl
import Foundation

// Streaming responses on the engine thread: the head goes to `completion` as soon as the headers
// are complete; body chunks go to `stream`, which pauses the transfer (CURL_WRITEFUNC_PAUSE) when
// the consumer is about 1 MB behind; the timeout is the engine's `streamDeadline`, bounding the
// wait for the headers and then the silence between chunks, not the whole stream.
extension CurlTransfer {
    /// libcurl's receive buffer for streams: fewer, larger reads for a fast stream. Only the pages a
    /// read fills become resident.
    static let streamBufferSize = 512 << 10

    /// The silence a stream may keep: the request's timeout, `nil` for none.
    var streamTimeout: Duration? {
        guard plan.timeout.isFinite, plan.timeout <= TransferPlan.timeoutCeiling else { return nil }
        return .milliseconds(Int64((plan.timeout * 1000).rounded(.up)))
    }

    /// Whether `handle` takes a stream's receive buffer size (see `CurlEngine.makeTransfer`). A
    /// plain GET's options go first: a stream sets every option then, and a handle that returns to
    /// the pool unused must not keep the plain baseline with a stream's buffer size. A stream's
    /// baseline stays (the size is the one it has), for the next stream to keep.
    static func acceptsStreamBuffer(_ handle: CurlEasyHandle) -> Bool {
        if handle.hasBaseline, handle.baseline?.streams != true { handle.reset() }
        return (try? handle.set(CURLOPT_BUFFERSIZE, streamBufferSize)) != nil
    }

    func configureStreaming() throws(NetworkError) {
        // No Accept-Encoding: a paused libcurl keeps the whole decompressed rest of the chunk it was
        // delivering in memory, which a small compressed chunk can make arbitrarily large.
        try handle.set(CURLOPT_BUFFERSIZE, Self.streamBufferSize)
        startStreamClock()
    }

    /// Starts the wait for the head: on every stream, whether its handle was configured afresh or
    /// kept a stream's options.
    func startStreamClock() {
        streamDeadline = streamTimeout.map { ContinuousClock.now + $0 }
    }

    /// A body chunk of a stream: handed to the buffer, or the transfer pauses. Returns what the
    /// write callback returns: the length, `CURL_WRITEFUNC_PAUSE`, or 0 to abort.
    func receiveStreamed(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let stream else { return 0 }
        // The body of a redirect: nobody reads it.
        guard headReady else { return countReceived(bytes.count) ? bytes.count : 0 }
        switch stream.offer(bytes) {
        case .accepted:
            // Counted once taken: a paused chunk comes again when the transfer resumes.
            guard countReceived(bytes.count) else { return 0 }
            streamDeadline = streamTimeout.map { ContinuousClock.now + $0 }
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

    /// The blank line that ends a header block: the final response's head goes to `completion` at
    /// the end of the round (with the engine), or now. A 3xx waits for the end of its transfer:
    /// libcurl resolves its `Location` only then.
    func endOfHeaderBlock() -> Bool {
        guard stream != nil, !headReady, let status = handle.long(CURLINFO_RESPONSE_CODE), status >= 200,
              !(300..<400).contains(status) else { return true }
        headReady = true
        guard let streamEngine else {
            deliverHead()
            return true
        }
        if !streamDeliveryDue {
            streamDeliveryDue = true
            streamEngine.deliverAtEndOfRound(self)
        }
        return true
    }

    /// Hands the response so far to `completion`, once.
    func deliverHead() {
        takeHead()?()
    }

    /// The head as ``deliverHead()`` hands it over, read from the handle now and handed over when
    /// the result is called (after the handle went back to the pool, say); `nil` once taken.
    func takeHead() -> (() -> Void)? {
        guard let stream, !headDelivered else { return nil }
        headDelivered = true
        // Silence counts from the head's delivery, unless the body that came in the same round
        // already filled the buffer: a paused stream waits for its reader, which is not silence.
        if streamDeadline != nil { streamDeadline = streamTimeout.map { ContinuousClock.now + $0 } }
        guard let completion else { return nil }
        self.completion = nil
        // A proxy's 407 to a forwarded request is the proxy's failure, not the stream's head.
        if let failure = proxyAuthenticationFailure(status: handle.long(CURLINFO_RESPONSE_CODE) ?? 0) {
            return { completion(.failure(failure)) }
        }
        var response = response(body: Data(), metrics: metrics())
        response.stream = StreamBody(buffer: stream, origin: plan.origin)
        return { [response] in completion(.success(response)) }
    }

    /// The engine is about to resume this transfer: silence counts from now.
    func willResume() {
        stream?.willResume()
        if stream != nil, streamDeadline == nil {
            streamDeadline = streamTimeout.map { ContinuousClock.now + $0 }
        }
    }

    /// The timeout error of a transfer whose silence deadline passed.
    func silenceError() -> NetworkError {
        guard stream == nil, let idleTimeout else { return streamTimeoutError() }
        return .timeOut(.init(request: plan.redactedDescription,
                              reason: "no data for \(idleTimeout.seconds.compactText) s (the idle timeout)"))
    }

    func streamTimeoutError() -> NetworkError {
        let seconds = plan.statedTimeout.compactText
        return .timeOut(.init(request: plan.redactedDescription,
                              reason: headDelivered
                                ? "the stream was silent for longer than the timeout of \(seconds) s"
                                : "no response headers within the timeout of \(seconds) s"))
    }
}
