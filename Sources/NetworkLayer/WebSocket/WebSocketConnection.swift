internal import CNetworkLayerCurl
import Foundation
import Synchronization

/// A live WebSocket, driven by the engine's thread: libcurl connects on the engine's multi handle
/// (`CURLOPT_CONNECT_ONLY`: proxy tunnel, TLS with the pins, CA bundle and client certificate of
/// any request), then the engine's event loop watches the socket, and each turn (the socket is
/// ready, a timer is due, or a task that sends, reads or closes asked for one) writes the
/// handshake or moves frames with `curl_easy_send`/`curl_easy_recv`.
///
/// Backpressure: a turn stops reading while the inbox is full, and `send` waits while more
/// than ``outboxCapacity`` bytes are queued and not yet taken by the kernel.
// @unchecked Sendable: `shared` is behind its lock; `sender` too. Everything else mutable (the
// stage, the decoder, the reader, the pending bytes) is used on the engine thread alone, from
// `begin()` on; the opener only creates them before it hands the connection to the engine.
final class WebSocketConnection: WebSocketChannel, EngineDriven, @unchecked Sendable {
    /// Bytes of sent messages queued ahead of the kernel before `send` waits.
    static let outboxCapacity = 1 << 20
    /// How long a failing connection waits for its close frame to leave before it closes.
    static let failureLinger: Duration = .seconds(1)

    /// The hop as the core planned it: the transfer's, read in place.
    private var plan: TransferPlan { transfer.plan }
    private let transfer: CurlTransfer
    /// The connection's own cache: libcurl keeps a CONNECT_ONLY connection there, idle to it, and
    /// would close it to make room, or as too old, in a cache other connections use.
    private let cache: CurlShare
    private let engine: CurlEngine
    private let waker: WebSocketWaker
    private let options: WebSocketOptions
    private let description: String
    let inbox: WebSocketInbox

    private enum Phase {
        case connecting
        case open
        /// A close frame is queued or sent; the connection ends at `deadline` if the server's
        /// close frame has not come.
        case closing(deadline: ContinuousClock.Instant)
        case closed
    }

    /// What the tasks and the thread share.
    private struct Shared {
        var phase = Phase.connecting
        var outbox: [[UInt8]] = []
        /// Bytes queued and not yet taken by the kernel.
        var outboxBytes = 0
        var sendWaiters: [UnsafeContinuation<Void, Never>] = []
        var closeWaiters: [UnsafeContinuation<Void, Never>] = []
        var closeStatus: (code: WebSocketCloseCode, reason: String)?
        /// Who started the close handshake; the first counts.
        var closing: WebSocketClosing?
        var isCancelled = false
        /// Why the socket failed, for sends after it.
        var failure: NetworkError?
        var opener: UnsafeContinuation<Result<HTTPResponse, NetworkError>, Never>?
    }
    private let shared = Protected(Shared())

    /// The deflater, used under this lock so that messages are compressed in the order they are queued.
    private struct Sender {
        var deflater: WebSocketDeflater?
        var keys = WebSocketMaskingKeys()
    }
    private let sender = Protected(Sender())

    /// Where the engine is with the socket.
    private enum Stage {
        case connecting
        case sendingHandshake
        case readingHead(received: [UInt8])
        case readingFailureBody(WebSocketHandshake.Head, body: [UInt8])
        case exchanging
        case done
    }

    // The engine thread's own.
    private var stage = Stage.connecting
    /// The handshake's end: the request's timeout from when the engine began.
    private var deadline = ContinuousClock.now
    private var buffer: [UInt8] = []
    private var socket: curl_socket_t = -1
    private var decoder = WebSocketFrameDecoder(maximumPayload: 0, allowsCompression: false)
    private var reader = WebSocketMessageReader(maximumMessageSize: 0)
    private var pending: [UInt8] = []
    private var pendingOffset = 0
    /// Bytes of `pending` that came from the outbox (counted in `outboxBytes` until written).
    private var pendingFromOutbox = 0
    /// Whether the last read stopped before libcurl said "no more" (TLS may hold decrypted bytes
    /// that `poll` does not see).
    private var mayHaveBufferedInput = false
    private var nextPing: ContinuousClock.Instant?
    private var awaitingPong = false
    private var closeReceived = false
    private var closeSent = false
    /// Failed: what arrives is read and dropped until our close frame is out.
    private var discarding = false
    /// Messages decoded from one read, handed to the inbox together (one wake-up of the reader).
    private var arrived: [WebSocketMessage] = []
    /// The request's log, once the socket is open.
    private var log: WebSocketLog?

    private init(_ plan: TransferPlan, options: WebSocketOptions, engine: CurlEngine) throws(NetworkError) {
        self.engine = engine
        self.options = options
        description = plan.redactedDescription
        let handle = try CurlEasyHandle()
        transfer = try CurlTransfer(plan: plan, handle: handle)
        // Connect (proxy tunnel and TLS included), then stop: the bytes are ours. HTTP/1.1 only:
        // an upgrade is an HTTP/1.1 exchange, and ALPN must not agree on h2. A proxy is always
        // tunnelled (CONNECT), for http:// too: a proxy would not forward an upgrade otherwise.
        try handle.set(CURLOPT_CONNECT_ONLY, 1)
        try handle.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        try handle.set(CURLOPT_HTTPPROXYTUNNEL, true)
        cache = try CurlShare()
        try handle.set(CURLOPT_SHARE, pointer: cache.raw)
        let waker = WebSocketWaker(engine: engine)
        self.waker = waker
        inbox = WebSocketInbox(onRoom: { waker.wake() })
        waker.connection = self
    }

    /// Connects, sends the handshake and returns the server's answer: a 101 carrying the open
    /// socket (``HTTPResponse/webSocket``), or any other status with its body (up to 64 KB),
    /// which the pipeline validates and redirects like any response.
    static func open(_ plan: TransferPlan) async throws(NetworkError) -> HTTPResponse {
        // libcurl's global initialisation runs once, with the engine's: never from two handles at once.
        let engine = try CurlEngine.shared.get()
        let connection = try WebSocketConnection(plan, options: plan.webSocket?.options ?? WebSocketOptions(), engine: engine)
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<HTTPResponse, NetworkError>, Never>) in
                connection.shared.withLock { $0.opener = continuation }
                engine.perform { connection.begin() }
            }
        } onCancel: {
            connection.shared.withLock { $0.isCancelled = true }
            connection.waker.wake()
        }
        // The response (and the socket's state in it) crosses from the engine thread through the
        // concurrency runtime, which ThreadSanitizer cannot see into: the pair states the ordering
        // that resuming the continuation provides (no-ops outside TSan builds).
        nl_tsan_acquire(Unmanaged.passUnretained(connection).toOpaque())
        return try result.get()
    }

    // MARK: The tasks' side

    nonisolated(nonsending) func send(_ message: WebSocketMessage) async throws(NetworkError) {
        let queued = try sender.withLock { (sender: inout Sender) -> Result<(wakes: Bool, waits: Bool), NetworkError> in
            var frames: [UInt8] = []
            switch message {
            case .text(let text):
                var text = text
                text.withUTF8 { appendFrames(.text, payload: UnsafeRawBufferPointer($0), sender: &sender, to: &frames) }
            case .binary(let data):
                data.withUnsafeBytes { appendFrames(.binary, payload: $0, sender: &sender, to: &frames) }
            }
            return shared.withLock { (shared: inout Shared) -> Result<(wakes: Bool, waits: Bool), NetworkError> in
                guard case .open = shared.phase else { return .failure(closedError(shared)) }
                shared.outbox.append(frames)
                shared.outboxBytes += frames.count
                // Only the first message of an empty outbox wakes the thread: it takes the whole
                // outbox at once, and any message queued before it does goes with it.
                return .success((shared.outbox.count == 1, shared.outboxBytes > Self.outboxCapacity))
            }
        }.get()
        if queued.wakes { waker.wake() }
        guard queued.waits else { return }
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let waiting = shared.withLock { shared -> Bool in
                guard shared.outboxBytes > Self.outboxCapacity, case .open = shared.phase else { return false }
                shared.sendWaiters.append(continuation)
                return true
            }
            if !waiting { continuation.resume() }
        }
    }

    /// The frames of one message: compressed when agreed, split at the frame limit.
    private func appendFrames(_ opcode: WebSocketFrame.Opcode, payload: UnsafeRawBufferPointer, sender: inout Sender,
                              to frames: inout [UInt8]) {
        if let deflater = sender.deflater {
            let compressed = deflater.compress(payload)
            compressed.withUnsafeBytes { split(opcode, compressed: true, payload: $0, keys: &sender.keys, to: &frames) }
        } else {
            split(opcode, compressed: false, payload: payload, keys: &sender.keys, to: &frames)
        }
    }

    private func split(_ opcode: WebSocketFrame.Opcode, compressed: Bool, payload: UnsafeRawBufferPointer,
                       keys: inout WebSocketMaskingKeys, to frames: inout [UInt8]) {
        let limit = options.frameLimit
        var offset = 0
        repeat {
            let end = min(payload.count, offset + limit)
            WebSocketFrameEncoder.append(offset == 0 ? opcode : .continuation, fin: end == payload.count,
                                         compressed: compressed && offset == 0, payload: UnsafeRawBufferPointer(rebasing: payload[offset..<end]),
                                         key: keys.next(), to: &frames)
            offset = end
        } while offset < payload.count
    }

    /// The error for a send on a socket that is closing or closed.
    private func closedError(_ shared: Shared) -> NetworkError {
        if let failure = shared.failure { return failure }
        let status = shared.closeStatus.map { " (\($0.code))" } ?? ""
        var context = NetworkError.Context(request: description, reason: "the WebSocket is closed\(status): a message cannot be sent after close")
        context.refusedSocketCall = .send
        return .invalidRequest(context)
    }

    nonisolated(nonsending) func receive() async throws(NetworkError) -> WebSocketMessage? {
        if let ready = inbox.ready() { return try ready.get() }
        return try await inbox.next(onCancel: { [weak self] in self?.closeSoon(.goingAway, reason: "", because: "the task reading it was cancelled") },
                             cancelled: { [description] in .cancelled(.init(request: description, reason: "the task reading the WebSocket was cancelled")) })
    }

    nonisolated(nonsending) func close(_ code: WebSocketCloseCode, reason: String) async {
        if enqueueClose(code, reason: reason, cause: nil) { waker.wake() }
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let waiting = shared.withLock { shared -> Bool in
                if case .closed = shared.phase { return false }
                shared.closeWaiters.append(continuation)
                return true
            }
            if !waiting { continuation.resume() }
        }
    }

    func closeSoon(_ code: WebSocketCloseCode, reason: String, because cause: String) {
        if !enqueueClose(code, reason: reason, cause: cause) {
            shared.withLock { shared in if case .connecting = shared.phase { shared.isCancelled = true } }
        }
        waker.wake()
    }

    /// Queues a close frame after the messages queued before it, if the socket is open: the
    /// socket is closing from then on, and nothing more can be sent.
    private func enqueueClose(_ code: WebSocketCloseCode, reason: String, cause: String?) -> Bool {
        var frame: [UInt8] = []
        WebSocketFrameEncoder.append(.close, payload: code.payload(reason: reason), to: &frame)
        return sender.withLock { _ -> Bool in
            shared.withLock { shared -> Bool in
                guard case .open = shared.phase else { return false }
                shared.outbox.append(frame)
                shared.outboxBytes += frame.count
                shared.phase = .closing(deadline: .now + options.closeLimit)
                if shared.closing == nil { shared.closing = WebSocketClosing(side: .client, code: code, reason: reason, cause: cause) }
                return true
            }
        }
    }

    var closeStatus: (code: WebSocketCloseCode, reason: String)? {
        shared.withLock { $0.closeStatus }
    }

    // MARK: The engine thread

    /// A turn asked for through the waker (``WebSocketWaker/wake()``).
    fileprivate func wokenTurn() {
        // An exchange, not a store: it reads the flag the waking task set, and with it what the task queued.
        _ = waker.posted.exchange(false, ordering: .acquiringAndReleasing)
        engineTurn()
    }

    func engineTurn() {
        switch stage {
        case .connecting:
            if shared.withLock({ $0.isCancelled }) {
                opened(.failure(.cancelled(.init(request: description, reason: "the WebSocket was cancelled while it connected"))))
            }
        case .sendingHandshake, .readingHead, .readingFailureBody:
            handshakeTurn()
        case .exchanging:
            exchangeTurn()
        case .done:
            return
        }
    }

    /// Starts connecting on the engine's multi handle; the handshake's deadline runs from here.
    private func begin() {
        deadline = ContinuousClock.now + .seconds(max(0, min(plan.timeout, TransferPlan.timeoutCeiling)))
        if shared.withLock({ $0.isCancelled }) {
            opened(.failure(.cancelled(.init(request: description, reason: "the WebSocket was cancelled while it connected"))))
            return
        }
        let added = engine.connect(transfer) { [self] code in connected(code) }
        guard added == CURLM_OK else {
            opened(.failure(.transport(.init(request: description, reason: "libcurl refused the WebSocket's transfer (CURLMcode \(added.rawValue))"))))
            return
        }
    }

    /// libcurl's part is done (resolve, connect, tunnel, TLS): the handshake starts, or the
    /// opener gets what any request would.
    private func connected(_ code: CURLcode) {
        guard code == CURLE_OK else {
            let error: NetworkError
            if case .failure(let failure) = transfer.result(for: code) {
                error = failure
            } else {
                error = .transport(.init(request: description, reason: "libcurl could not connect (CURLcode \(code.rawValue))"))
            }
            opened(.failure(error))
            return
        }
        var active: curl_socket_t = -1
        guard nl_easy_getinfo_socket(transfer.handle.raw, CURLINFO_ACTIVESOCKET, &active) == CURLE_OK, active >= 0 else {
            opened(.failure(.transport(.init(request: description, reason: "libcurl connected but has no socket for the WebSocket"))))
            return
        }
        socket = active
        var lines = plan.headerLines.compactMap { line in line.value.map { (name: line.name, value: $0) } }
        if let cookie = cookieHeader(plan) { lines.append(("Cookie", cookie)) }
        pending = WebSocketHandshake.requestBytes(url: plan.urlText, lines: lines)
        pendingOffset = 0
        stage = .sendingHandshake
        handshakeTurn()
    }

    /// Writes the request, reads the answer's head (and a failure's body) as far as the socket allows.
    private func handshakeTurn() {
        do throws(NetworkError) {
            if case .readingFailureBody(let head, let body) = stage {
                readFailureBody(head, body: body)
                return
            }
            if shared.withLock({ $0.isCancelled }) {
                throw .cancelled(.init(request: description, reason: "the WebSocket was cancelled during its handshake"))
            }
            if case .sendingHandshake = stage {
                guard try writePending() else {
                    try waitForSocket(writing: true, during: "sending the handshake")
                    return
                }
                pending = []
                pendingOffset = 0
                stage = .readingHead(received: [])
            }
            guard case .readingHead(var received) = stage else { return }
            stage = .readingHead(received: [])
            var headEnd: Int?
            while headEnd == nil {
                guard received.count <= 64 << 10 else {
                    throw .transport(.init(request: description, reason: "the server's handshake answer has more than 64 KB of headers"))
                }
                guard try read(into: &received) else {
                    if let end = received.firstRange(of: [13, 10, 13, 10]) { headEnd = end.upperBound; break }
                    throw .transport(.init(request: description, reason: received.isEmpty
                        ? "the server closed the connection without answering the WebSocket handshake"
                        : "the server closed the connection in the middle of its handshake answer"))
                }
                if let end = received.firstRange(of: [13, 10, 13, 10]) { headEnd = end.upperBound; break }
                stage = .readingHead(received: received)
                try waitForSocket(writing: false, during: "waiting for the handshake's answer")
                return
            }
            try headArrived(received, end: headEnd ?? received.count)
        } catch {
            opened(.failure(error))
        }
    }

    /// Checks the server's answer: a 101 opens the socket; any other status reads its body first.
    private func headArrived(_ received: [UInt8], end: Int) throws(NetworkError) {
        let head: WebSocketHandshake.Head
        switch WebSocketHandshake.parseHead(received[..<end]) {
        case .success(let parsed): head = parsed
        case .failure(let error): throw .transport(.init(request: description, reason: error.reason))
        }
        let headers = ResponseHeaders(fields: head.fields)
        let leftover = Array(received[end...])
        guard head.status == 101 else {
            readFailureBody(head, body: leftover)
            return
        }
        let key = plan.headers.value(for: "Sec-WebSocket-Key") ?? ""
        let offered = plan.headers.value(for: "Sec-WebSocket-Protocol")?.split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        let compression = plan.headers.value(for: "Sec-WebSocket-Extensions") == nil ? .none : options.compression
        let agreement: WebSocketHandshake.Agreement
        switch WebSocketHandshake.check(head, key: key, protocols: offered, compression: compression) {
        case .success(let agreed): agreement = agreed
        case .failure(let error): throw .transport(.init(request: description, reason: error.reason, statusCode: 101))
        }
        var inflater: WebSocketInflater?
        if let deflate = agreement.deflate {
            do {
                inflater = try WebSocketInflater(noContextTakeover: deflate.serverNoContextTakeover)
            } catch {
                throw .transport(.init(request: description, reason: error.reason))
            }
            sender.withLock { $0.deflater = WebSocketDeflater(deflate) }
        }
        decoder = WebSocketFrameDecoder(maximumPayload: options.messageLimit, allowsCompression: inflater != nil)
        reader = WebSocketMessageReader(maximumMessageSize: options.messageLimit,
                                        decompressionLimit: plan.options.table.decompressionLimit, inflater: inflater)
        decoder.append(leftover)
        var response = HTTPResponse(statusCode: 101, headers: headers, body: Data(), isMocked: false, origin: plan.origin,
                                    expectations: plan.expectations, metrics: transfer.metrics())
        log = plan.webSocket?.log
        response.webSocket = WebSocketUpgrade(channel: self, subprotocol: agreement.subprotocol, isCompressed: inflater != nil, log: log)
        opened(.success(response))
    }

    /// Hands the handshake's outcome to the opener; the socket is open on a 101, else the
    /// connection closes. Not kept: holding the upgrade would keep a response nobody took open.
    private func opened(_ outcome: Result<HTTPResponse, NetworkError>) {
        let isOpen = if case .success(let response) = outcome, response.webSocket != nil { true } else { false }
        let opener = shared.withLock { shared in
            defer { shared.opener = nil }
            shared.phase = isOpen ? .open : .closed
            return shared.opener
        }
        if !isOpen { stop() }
        nl_tsan_release(Unmanaged.passUnretained(self).toOpaque())
        opener?.resume(returning: outcome)
        if isOpen { startExchange() }
    }

    /// Closes the connection now (libcurl closes a CONNECT_ONLY connection whose handle leaves
    /// the multi handle), not when the last holder of the connection lets go.
    private func stop() {
        stage = .done
        if socket >= 0 { engine.unwatch(socket) }
        engine.schedule(self, at: nil)
        engine.release(transfer)
        try? transfer.handle.set(CURLOPT_SHARE, pointer: nil)
    }

    /// Reads the body of a failing answer, up to 64 KB: by its `Content-Length`, chunked, or
    /// until the server closes; whatever arrived when the deadline passes or the opener cancels.
    private func readFailureBody(_ head: WebSocketHandshake.Head, body received: [UInt8]) {
        let limit = HTTPResponse.errorBodyLimit
        let length = head.values("Content-Length").first.flatMap { Int($0) }
        let chunked = head.values("Transfer-Encoding").contains { $0.lowercased().contains("chunked") }
        var body = received
        func complete() -> Bool {
            if body.count >= limit { return true }
            if let length { return body.count >= length }
            if chunked { return body.firstRange(of: Array("0\r\n\r\n".utf8)) != nil }
            return false
        }
        if !complete(), ContinuousClock.now < deadline, (try? read(into: &body)) == true, !complete(),
           !shared.withLock({ $0.isCancelled }), (try? waitForSocket(writing: false, during: "")) != nil {
            stage = .readingFailureBody(head, body: body)
            return
        }
        if chunked { body = Self.dechunked(body) }
        if let length { body = Array(body.prefix(length)) }
        let location = (300..<400).contains(head.status) ? head.values("Location").first.flatMap {
            URL(string: $0, relativeTo: plan.origin.url)?.absoluteString } : nil
        opened(.success(HTTPResponse(statusCode: head.status, headers: ResponseHeaders(fields: head.fields), body: Data(body.prefix(limit)),
                                     isMocked: false, origin: plan.origin, expectations: plan.expectations,
                                     metrics: transfer.metrics(), redirectLocation: location)))
    }

    /// The `Cookie` header from the manager's cookie store, when the request has none of its own.
    private func cookieHeader(_ plan: TransferPlan) -> String? {
        guard let jar = plan.options.cookieJar, let lines = try? jar.lines() else { return nil }
        let now = Date()
        let cookies = lines.compactMap(Cookie.init(netscapeLine:)).filter { $0.applies(to: plan.origin.url, at: now) }
        guard !cookies.isEmpty else { return nil }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// The data of a chunked body, as far as it is well formed.
    static func dechunked(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while let lineEnd = bytes[index...].firstRange(of: [13, 10]) {
            let sizeText = String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0,
                  lineEnd.upperBound + size <= bytes.count else { break }
            output += bytes[lineEnd.upperBound..<lineEnd.upperBound + size]
            index = min(bytes.count, lineEnd.upperBound + size + 2)
        }
        return output
    }

    /// A turn when the socket is ready, at the deadline, or on a wake-up; fails once it passed.
    private func waitForSocket(writing: Bool, during step: String) throws(NetworkError) {
        guard deadline - .now > .zero else {
            throw .timeOut(.init(request: description, reason: "the request's timeout of \(plan.timeout.compactText) s passed while \(step)"))
        }
        try watch(reading: !writing, writing: writing)
        engine.schedule(self, at: deadline)
    }

    private func watch(reading: Bool, writing: Bool) throws(NetworkError) {
        guard engine.watch(socket, reading: reading, writing: writing, for: self) else {
            throw .transport(.init(request: description, reason: "the engine could not watch the WebSocket's socket (out of memory)"))
        }
    }

    /// Reads what is there onto `bytes`: `false` when the server closed the connection.
    private func read(into bytes: inout [UInt8]) throws(NetworkError) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            var count = 0
            let code = buffer.withUnsafeMutableBytes { curl_easy_recv(transfer.handle.raw, $0.baseAddress, $0.count, &count) }
            if code == CURLE_AGAIN { return true }
            guard code == CURLE_OK else { throw receiveError(code) }
            if count == 0 { return false }
            bytes += buffer[..<count]
        }
    }

    /// Writes from `pending`: `true` once all of it is written, `false` when the kernel is full.
    private func writePending() throws(NetworkError) -> Bool {
        while pendingOffset < pending.count {
            var count = 0
            let code = pending.withUnsafeBytes {
                curl_easy_send(transfer.handle.raw, $0.baseAddress! + pendingOffset, $0.count - pendingOffset, &count)
            }
            if code == CURLE_AGAIN { return false }
            guard code == CURLE_OK else {
                throw .transport(.init(request: description, reason: "sending on the WebSocket failed: \(transfer.handle.message(for: code))"))
            }
            pendingOffset += count
        }
        return true
    }

    private func receiveError(_ code: CURLcode) -> NetworkError {
        .transport(.init(request: description, reason: "the WebSocket connection broke: \(transfer.handle.message(for: code))"))
    }

    // MARK: Frames both ways (the engine thread)

    /// Starts moving frames, one turn at a time, until the socket closes.
    private func startExchange() {
        stage = .exchanging
        if let interval = options.pingLimit { nextPing = .now + interval }
        buffer = [UInt8](repeating: 0, count: 64 << 10)
        // Frames that came with the handshake's answer (a server that greets, or closes, at once).
        if processFrames() == true {
            end()
        } else {
            exchangeTurn()
        }
    }

    private func exchangeTurn() {
        let done: Bool
        do throws(NetworkError) {
            done = try step(&buffer)
        } catch {
            fail(error, code: .abnormalClosure, sendsClose: false)
            done = true
        }
        if done { end() }
    }

    private func end() {
        finishClosing()
        stop()
    }

    /// One turn: requests, writing, reading, timers, then what to wait for. `true` when the socket is done.
    private func step(_ buffer: inout [UInt8]) throws(NetworkError) -> Bool {
        if pendingOffset >= pending.count { refillPending() }
        if pendingOffset < pending.count {
            let wasFromOutbox = pendingFromOutbox
            let before = pendingOffset
            let done = try writePending()
            wrote(min(wasFromOutbox, pendingOffset - before))
            if done { clearPending() }
        }
        if closeReceived, closeSent, pendingOffset >= pending.count { return true }
        let reading = discarding || (!closeReceived && (inbox.hasRoom || isClosing))
        if reading, try receive(&buffer) { return true }
        if closeReceived, closeSent, pendingOffset >= pending.count { return true }
        // Timers.
        let now = ContinuousClock.now
        if case .closing(let deadline) = shared.withLock({ $0.phase }), now >= deadline {
            setStatus(closeReceived ? nil : (.abnormalClosure, ""))
            return true
        }
        if let next = nextPing, now >= next, !isClosing {
            if !reading {
                nextPing = now + (options.pingLimit ?? .seconds(30))  // not reading: a pong could not be seen
            } else if awaitingPong {
                let seconds = (options.pingLimit ?? .zero).seconds.compactText
                fail(.timeOut(.init(request: description, reason: "the server did not answer a ping within \(seconds) s")),
                     code: .abnormalClosure, sendsClose: false)
                return true
            } else {
                var frame: [UInt8] = []
                WebSocketFrameEncoder.append(.ping, payload: Array("NetworkLayer".utf8), to: &frame)
                appendControl(frame)
                awaitingPong = true
                nextPing = now + (options.pingLimit ?? .seconds(30))
            }
        }
        // The next turn: the socket ready, a timer, or a wake-up.
        try watch(reading: reading, writing: pendingOffset < pending.count)
        var timeout = Duration.seconds(1)
        if let nextPing { timeout = min(timeout, nextPing - now) }
        if case .closing(let deadline) = shared.withLock({ $0.phase }) { timeout = min(timeout, deadline - now) }
        if mayHaveBufferedInput, reading { timeout = .zero }
        engine.schedule(self, at: now + max(timeout, .zero))
        return false
    }

    private var isClosing: Bool {
        if case .closing = shared.withLock({ $0.phase }) { return true }
        return closeSent
    }

    /// Reads and handles what arrived: `true` when the socket is done.
    private func receive(_ buffer: inout [UInt8]) throws(NetworkError) -> Bool {
        mayHaveBufferedInput = false
        for _ in 0..<16 {
            var count = 0
            let code = buffer.withUnsafeMutableBytes { curl_easy_recv(transfer.handle.raw, $0.baseAddress, $0.count, &count) }
            if code == CURLE_AGAIN { return false }
            guard code == CURLE_OK else { throw receiveError(code) }
            if count == 0 {
                if !closeReceived {
                    setStatus((.abnormalClosure, ""))
                    finish(.failed(.transport(.init(request: description,
                                                    reason: "the server closed the connection without a close frame (1006)"))))
                }
                return true
            }
            // After a failure, what still comes is read only so that the server can take our close frame.
            if discarding { continue }
            buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            if let done = processFrames() { return done }
            if !inbox.hasRoom, !isClosing {
                mayHaveBufferedInput = true
                return false
            }
        }
        mayHaveBufferedInput = true
        return false
    }

    /// Handles the complete frames received: `nil` to go on reading, else whether the socket is done.
    private func processFrames() -> Bool? {
        defer { deliver() }
        do {
            while let frame = try decoder.next() {
                guard let event = try reader.receive(frame) else { continue }
                if handle(event) { return closeSent && pendingOffset >= pending.count }
            }
        } catch {
            fail(.transport(.init(request: description, reason: "\(error.reason); the WebSocket closed with \(error.code)")),
                 code: error.code, sendsClose: true, reason: "")
            return false
        }
        return nil
    }

    /// Handles one event: `true` after the server's close frame.
    private func handle(_ event: WebSocketMessageReader.Event) -> Bool {
        switch event {
        case .message(let message):
            if !closeSent || inbox.hasRoom { arrived.append(message) }
        case .ping(let payload):
            if !closeSent {
                var frame: [UInt8] = []
                WebSocketFrameEncoder.append(.pong, payload: payload, to: &frame)
                appendControl(frame)
            }
        case .pong:
            awaitingPong = false
        case .close(let code, let reason):
            deliver()
            closeReceived = true
            setStatus((code, reason))
            if !closeSent {
                shared.withLock { shared in
                    if shared.closing == nil { shared.closing = WebSocketClosing(side: .server, code: code, reason: reason) }
                }
                var frame: [UInt8] = []
                WebSocketFrameEncoder.append(.close, payload: code == .noStatusReceived ? [] : code.payload(reason: ""), to: &frame)
                dropOutbox()
                appendControl(frame)
                closeSent = true
                setClosing()
            }
            finish(.closed)
            return true
        }
        return false
    }

    /// Fails the socket: the reader gets `error`, the server a close frame with `code` when
    /// `sendsClose` (it then has ``failureLinger`` to leave).
    private func fail(_ error: NetworkError, code: WebSocketCloseCode, sendsClose: Bool, reason: String = "") {
        setStatus((code, reason))
        shared.withLock { shared in
            if shared.failure == nil { shared.failure = error }
            if sendsClose, !closeSent, shared.closing == nil { shared.closing = WebSocketClosing(side: .client, code: code, reason: reason) }
        }
        deliver()
        finish(.failed(error))
        if sendsClose, !closeSent {
            var frame: [UInt8] = []
            WebSocketFrameEncoder.append(.close, payload: code.payload(reason: reason), to: &frame)
            dropOutbox()
            appendControl(frame)
            closeSent = true
            discarding = true
            shared.withLock { $0.phase = .closing(deadline: .now + Self.failureLinger) }
        } else if !sendsClose {
            closeReceived = true
            closeSent = true
            clearPending()
        }
    }

    /// Ends the reader's side after the messages in the inbox, and logs how the socket ended
    /// first, so that the line is there when the loop or `close` returns; the first end counts.
    private func finish(_ end: WebSocketInbox.End) {
        guard !inbox.hasEnded else { return }
        if let log {
            let (closing, status) = shared.withLock { ($0.closing, $0.closeStatus) }
            log.ended(end, closing: closing, status: status)
        }
        inbox.finish(end)
    }

    /// Hands the messages decoded so far to the inbox, ahead of any end.
    private func deliver() {
        guard !arrived.isEmpty else { return }
        if let log { for message in arrived { log.message(message, outgoing: false) } }
        inbox.push(contentsOf: arrived)
        arrived.removeAll(keepingCapacity: arrived.capacity <= 4096)
    }

    /// Records how the socket closed; the first record counts.
    private func setStatus(_ status: (code: WebSocketCloseCode, reason: String)?) {
        guard let status else { return }
        shared.withLock { shared in if shared.closeStatus == nil { shared.closeStatus = status } }
    }

    private func setClosing() {
        shared.withLock { shared in
            if case .open = shared.phase { shared.phase = .closing(deadline: .now + options.closeLimit) }
        }
    }

    /// Takes queued messages into `pending`, up to 1 MB at once; a close frame among them ends
    /// what is taken, and what follows it is never sent.
    private func refillPending() {
        let chunks = shared.withLock { shared -> [[UInt8]] in
            defer { shared.outbox = [] }
            return shared.outbox
        }
        guard !chunks.isEmpty else { return }
        pending.removeAll(keepingCapacity: true)
        pendingOffset = 0
        pendingFromOutbox = 0
        for chunk in chunks where !closeSent {
            pending += chunk
            pendingFromOutbox += chunk.count
            if chunk.count >= 2, chunk[0] == 0x88 { closeSent = true }
        }
        let skipped = chunks.reduce(0) { $0 + $1.count } - pendingFromOutbox
        if skipped > 0 { wrote(skipped) }
    }

    /// A control frame, after what is pending (never inside a frame: pending holds whole frames).
    private func appendControl(_ frame: [UInt8]) {
        if pendingOffset >= pending.count { clearPending() }
        pending += frame
    }

    private func clearPending() {
        pending.removeAll(keepingCapacity: pending.capacity <= 1 << 20)
        pendingOffset = 0
        pendingFromOutbox = 0
    }

    /// Queued messages that will never go (a close came first): counted as gone for waiting senders.
    private func dropOutbox() {
        let dropped = shared.withLock { shared -> Int in
            defer { shared.outbox = [] }
            return shared.outbox.reduce(0) { $0 + $1.count }
        }
        wrote(dropped)
    }

    /// `count` bytes of messages left: senders waiting for room may go on.
    private func wrote(_ count: Int) {
        guard count > 0 else { return }
        pendingFromOutbox = max(0, pendingFromOutbox - count)
        let waiters = shared.withLock { shared -> [UnsafeContinuation<Void, Never>] in
            shared.outboxBytes -= count
            guard shared.outboxBytes <= Self.outboxCapacity else { return [] }
            defer { shared.sendWaiters = [] }
            return shared.sendWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The socket is done: everyone waiting is told.
    private func finishClosing() {
        if !inbox.hasEnded {
            let status = shared.withLock { $0.closeStatus }
            if let status, status.code != .abnormalClosure {
                finish(.closed)
            } else {
                finish(.failed(.transport(.init(request: description, reason: "the server did not answer the close handshake within "
                                                + "\(options.closeLimit.seconds.compactText) s; the connection was closed (1006)"))))
            }
        }
        setStatus((.abnormalClosure, ""))
        let (senders, closers) = shared.withLock { shared in
            shared.phase = .closed
            defer { shared.sendWaiters = []; shared.closeWaiters = [] }
            return (shared.sendWaiters, shared.closeWaiters)
        }
        for waiter in senders { waiter.resume() }
        for waiter in closers { waiter.resume() }
    }
}

/// Asks the engine for a turn of its connection from any thread: one turn posted at a time, as a
/// turn takes whatever was queued before it.
// @unchecked Sendable: `connection` is set once, in the connection's init, before the waker is
// shared; `posted` is atomic and `engine` immutable.
final class WebSocketWaker: @unchecked Sendable {
    let engine: CurlEngine
    let posted = Atomic<Bool>(false)
    weak var connection: WebSocketConnection?

    init(engine: CurlEngine) {
        self.engine = engine
    }

    func wake() {
        guard let connection, !posted.exchange(true, ordering: .acquiringAndReleasing) else { return }
        engine.perform { connection.wokenTurn() }
    }
}
