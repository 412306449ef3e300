internal import CNetworkLayerCurl
import Foundation
import Synchronization

/// Drives every live transfer: one libcurl multi handle on one dedicated thread.
///
/// Callers never block: they put work in the engine's inbox and wake the thread through the event
/// loop; the thread sleeps in the system's wait (epoll, or poll() where there is none) between rounds
/// and, through libcurl's multi-socket API, runs only the transfers whose socket is ready or whose
/// timer is due. The thread is also
/// ``NetworkManager/engineExecutor``: each round first runs the jobs of tasks that prefer it, so a
/// task resumed by a completion starts its next transfer in the same round.
// @unchecked Sendable: `multi`, `loop` and `activeCount` are used only by the engine thread (created in
// init, before the thread starts). Other threads reach the engine only through `inbox` and `pool`
// (both behind a `Protected` lock) and `nl_event_loop_wake`, a write to an eventfd or a pipe.
final class CurlEngine: @unchecked Sendable {
    /// The process-wide engine, never torn down.
    static let shared: Result<CurlEngine, NetworkError> = Result { () throws(NetworkError) in try CurlEngine() }

    private struct Inbox {
        var started: [CurlTransfer] = []
        var cancelled: [CurlTransfer] = []
        /// Paused transfers whose consumer caught up (streams) or whose producer has bytes again (uploads).
        var resumed: [CurlTransfer] = []
        var closeIdleConnections = false
        var limits: ConnectionLimits?
        /// Jobs of tasks on ``NetworkManager/engineExecutor``, run on the engine thread.
        var jobs: [UnownedJob] = []
        /// Work for the engine thread's own state, from ``perform(_:)``.
        var calls: [@Sendable () -> Void] = []
        /// Whether a wake-up is already on its way: many submissions need only one. Under the same
        /// lock as the work, so a submission never sees `true` after the engine took the inbox.
        var wakePending = false

        var hasWork: Bool {
            !jobs.isEmpty || !started.isEmpty || !cancelled.isEmpty || !resumed.isEmpty || !calls.isEmpty || closeIdleConnections
                || limits != nil
        }

        /// Records that the engine must look; `true` if the caller must wake it.
        mutating func needsWake() -> Bool {
            defer { wakePending = true }
            return !wakePending
        }
    }

    private let multi: UnsafeMutableRawPointer
    private let loop: OpaquePointer
    /// The engine thread's `pthread_self()`, 0 until it starts: what runs there submits without a wake-up.
    private let engineThread = Atomic<UInt>(0)
    private let inbox = Protected(Inbox())
    private let pool = Protected<[CurlEasyHandle]>([])
    private static let poolLimit = 256
    /// How many streams started on a pooled handle (the tests check the reuse happens).
    static let streamsOnPooledHandles = Atomic<Int>(0)
    /// Handles not pooled, their last stored header not quarantined (CurlEasyHandle+HeaderQuarantine.swift);
    /// headers quarantined now; quarantined headers libcurl appended a line to. For the tests.
    static let handlesLeftOutOfPool = Atomic<Int>(0)
    static var quarantinedHeaders: Int { Int(nl_quarantined_header_count()) }
    static var quarantinedHeadersReallocated: Int { Int(nl_quarantined_header_reallocations()) }
    /// Stream receive buffers libcurl freed that are kept for the next transfers (the tests check
    /// they are reused, and released when the engine idles).
    static var keptReceiveBuffers: Int { Int(nl_cached_buffer_count()) }
    /// How many transfers started with a kept receive buffer, since the process started.
    static var reusedReceiveBuffers: Int { Int(nl_cached_buffer_hits()) }
    static let idleConnectionLimit = 512
    // @exclusivity(unchecked) on the engine thread's own state below: only that thread touches it,
    // never reentrantly (what it saves per request: Benchmarks/RESULTS.md, "Speed tricks, measured").

    /// How many transfers libcurl is working on; each easy handle's `CURLOPT_PRIVATE` holds the
    /// engine's reference to its transfer meanwhile (`add`, `removeFromMulti`). Engine thread only.
    @exclusivity(unchecked) private var activeCount = 0
    /// Transfers with a deadline the engine keeps: streams and idle timeouts (their silence), and
    /// under connection limits every one with a timeout (libcurl does not time a transfer waiting for
    /// a free connection). Engine thread only.
    @exclusivity(unchecked) private var watched: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// Streams that received chunks in this round, handed to their readers when it ends. Engine thread only.
    @exclusivity(unchecked) private var dueDeliveries: [CurlTransfer] = []
    /// The connection caches in use, with how many transfers use each. Engine thread only.
    /// A list, not a dictionary: it holds one or two entries (more only while pins or client
    /// certificates change), and a comparison is cheaper than hashing the key twice per transfer.
    @exclusivity(unchecked) private var caches: [(key: ConnectionCacheKey, cache: CurlShare, users: Int)] = []
    @exclusivity(unchecked) private var newestPinGeneration = 0
    /// The trust callbacks of the newest transfers that had one: their connection caches are kept.
    private var recentTrustCallbacks: [Int] = []
    /// Likewise the newest ways of resolving names other than libcurl's default.
    private var recentResolvings: [ConnectionCacheKey.Resolving] = []
    /// CONNECT_ONLY transfers still connecting, with what runs when libcurl is done. Engine thread only.
    @exclusivity(unchecked) private var connecting: [UnsafeMutableRawPointer: (CURLcode) -> Void] = [:]
    /// Sockets watched for others than libcurl, by number, and their owners. Engine thread only.
    @exclusivity(unchecked) private var foreign: [curl_socket_t: any EngineDriven] = [:]
    /// When each owner wants its next turn. Engine thread only.
    @exclusivity(unchecked) private var turns: [ObjectIdentifier: (due: ContinuousClock.Instant, owner: any EngineDriven)] = [:]
    /// Raised by ``closeIdleConnections()``: later transfers get fresh caches, and the old ones
    /// close their connections as soon as no transfer uses them.
    @exclusivity(unchecked) private var epoch = 0

    /// The limits every manager set last, applied when the engine starts and whenever they change.
    static let connectionLimits = Protected(ConnectionLimits.unlimited)
    /// How long an unused connection stays open, in whole seconds; `nil` for libcurl's 118 s.
    /// Engine thread only.
    @exclusivity(unchecked) private var idleSeconds: Int?
    /// The limits in force, and whether they limit the number of connections. Engine thread.
    @exclusivity(unchecked) private var limits = ConnectionLimits.unlimited
    @exclusivity(unchecked) private var limitsConnections = false
    private let pruner = IdleConnectionPruner()
    /// Since when no transfer is running: once the idle time has passed, the unused connections
    /// are closed. Engine thread only.
    @exclusivity(unchecked) private var idleSince: ContinuousClock.Instant?
    /// Since when no transfer is running, for the stream buffers kept for the next transfers;
    /// far in the future once they are released. Engine thread only.
    @exclusivity(unchecked) private var quietSince: ContinuousClock.Instant?
    /// The most transfers running at once since the engine was last quiet. Engine thread only.
    @exclusivity(unchecked) private var peakActive = 0
    /// A peak from which the engine, once quiet, gives the heap's free memory back to the system.
    static let burstTransfers = 256
    /// How long the engine keeps stream buffers for reuse with no transfer running.
    static let keptBuffersLinger = Duration.seconds(1)

    /// The engine thread's name in the system (Linux keeps at most 15 bytes).
    static let threadName = "NetworkLayer-io"
    /// Which event loop was built: "epoll" (Linux) or "poll" (other systems, or `-Xcc -DNL_EVENT_LOOP_POLL`).
    static let eventLoopKind = String(cString: nl_event_loop_kind())

    /// The calling thread as a number (pthread_self is an integer in Glibc, a pointer elsewhere).
    private static func currentThread() -> UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }

    static let tlsBackend: String = {
        curl_version_info(CURLVERSION_TENTH)?.pointee.ssl_version.map { String(cString: $0) } ?? "none"
    }()

    private init() throws(NetworkError) {
        try CurlGlobal.initialise()
        guard let multi = curl_multi_init() else {
            throw .transport(.init(reason: "libcurl could not create its multi handle"))
        }
        self.multi = multi
        guard let loop = nl_event_loop_create(multi) else {
            throw .transport(.init(reason: "the engine could not create its event loop on \(Self.eventLoopKind): the system "
                                   + "refused a descriptor or memory (check the open-file limit, ulimit -n), or libcurl refused its callbacks"))
        }
        self.loop = loop
        guard nl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX)) == CURLM_OK else {
            throw .transport(.init(reason: "libcurl refused to enable HTTP/2 multiplexing"))
        }
        // libcurl's default (4 × the transfers running) closes connections only to open them again.
        guard nl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, Self.idleConnectionLimit) == CURLM_OK else {
            throw .transport(.init(reason: "libcurl refused the connection cache size"))
        }
        let thread = Thread { [self] in run() }
        thread.name = "NetworkLayer.curl"
        thread.start()
        apply(Self.connectionLimits.withLock { $0 })
    }

    /// Applies `limits` on the engine thread, which owns the multi handle.
    func apply(_ limits: ConnectionLimits) {
        submit { $0.limits = limits }
    }

    /// `limits` on the multi handle: 0 means no limit to libcurl. Engine thread.
    ///
    /// New limits start new connection caches: libcurl makes room by closing one unused connection,
    /// so a cache already over a new limit would stay over it.
    private func applyLimits(_ limits: ConnectionLimits) {
        if limits.perHost != self.limits.perHost || limits.total != self.limits.total {
            epoch += 1
            releaseUnusedCaches()
        }
        func bounded(_ value: Int?) -> Int { value.map { min(max($0, 1), Int(Int32.max)) } ?? 0 }
        _ = nl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, bounded(limits.perHost))
        _ = nl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, bounded(limits.total))
        idleSeconds = limits.idleTimeout.map { Int(min(max($0.seconds, 0), 1e9).rounded(.up)) }
        if idleSeconds == nil { pruner.removeAll() }
        self.limits = limits
        limitsConnections = limits.perHost != nil || limits.total != nil
    }

    // MARK: Any thread

    func makeTransfer(for plan: TransferPlan, download: PendingDownload? = nil) throws(NetworkError) -> CurlTransfer {
        let handle: CurlEasyHandle
        // libcurl refuses a stream's CURLOPT_BUFFERSIZE on a handle that still holds the receive
        // buffer of a transfer stopped early, even after curl_easy_reset: a stream drops such a
        // pooled handle and takes a new one.
        if let pooled = pool.withLock({ $0.popLast() }), !plan.streaming || CurlTransfer.acceptsStreamBuffer(pooled) {
            handle = pooled
            if plan.streaming { Self.streamsOnPooledHandles.add(1, ordering: .relaxed) }
        } else {
            handle = try CurlEasyHandle()
        }
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(plan: plan, handle: handle, download: download)
        } catch {
            recycle(handle, after: nil)
            throw error
        }
        // A cycle (buffer → control → transfer → buffer) that `finish` and `cancel` break.
        if let stream = transfer.stream {
            stream.setControl(.init(resume: { [self] in resume(transfer) }, cancel: { [self] in cancel(transfer) }))
            transfer.streamEngine = self
        }
        // The same cycle for a streamed body's producer, broken by `stop()` when the transfer ends.
        transfer.upload?.start(resume: { [self] in resume(transfer) })
        return transfer
    }

    /// Hands `transfer` to the engine; `completion` runs exactly once, on the engine thread.
    func start(_ transfer: CurlTransfer, completion: @escaping @Sendable (consuming Result<HTTPResponse, NetworkError>) -> Void) {
        transfer.completion = completion
        submit { $0.started.append(transfer) }
    }

    /// Runs `job` on the engine thread, in the loop, between rounds of I/O (``NetworkManager/engineExecutor``).
    func enqueue(_ job: UnownedJob) {
        submit { $0.jobs.append(job) }
    }

    /// Stops `transfer` if it is still running; its completion then reports ``NetworkError/cancelled``.
    func cancel(_ transfer: CurlTransfer) {
        transfer.isCancellationRequested.store(true, ordering: .releasing)
        submit { $0.cancelled.append(transfer) }
    }

    /// Resumes a transfer paused by its stream (the consumer caught up) or its upload (more bytes
    /// to send), on the engine thread, as `curl_easy_pause` requires.
    func resume(_ transfer: CurlTransfer) {
        submit { $0.resumed.append(transfer) }
    }

    /// Closes every connection that no transfer is using; running transfers' close when they end.
    func closeIdleConnections() {
        submit { $0.closeIdleConnections = true }
    }

    /// Runs `call` on the engine thread, in the loop, before this round's I/O.
    func perform(_ call: @escaping @Sendable () -> Void) {
        submit { $0.calls.append(call) }
    }

    /// Puts work in the inbox and wakes the engine thread if it may be sleeping. The engine thread
    /// itself neither wakes (the loop looks at the inbox before it sleeps) nor sets `wakePending`
    /// (which would keep other threads from waking it once it sleeps).
    private func submit(_ change: (inout Inbox) -> Void) {
        if engineThread.load(ordering: .relaxed) == Self.currentThread() {
            inbox.withLock { change(&$0) }
        } else if inbox.withLock({ change(&$0); return $0.needsWake() }) {
            wake()
        }
    }

    private func wake() {
        // Cannot fail but with a full counter, when a wake-up is pending anyway.
        nl_event_loop_wake(loop)
    }

    /// Puts a handle back in the pool: reset, unless a plain transfer configured it (see
    /// ``CurlTransfer/Baseline``) and libcurl did not retry it, which only forgets its header list.
    /// The last header `transfer` (`nil`: none ran) stored is quarantined first, or the handle not pooled.
    private func recycle(_ handle: CurlEasyHandle, after transfer: CurlTransfer?) {
        if CurlEasyHandle.keepsStaleHeaderPointer, let transfer, !transfer.quarantineLastStoredHeader() {
            Self.handlesLeftOutOfPool.add(1, ordering: .relaxed)
            return
        }
        if handle.mustResetBeforeReuse {
            handle.reset()
        } else {
            do throws(NetworkError) {
                try handle.set(CURLOPT_HTTPHEADER, headers: nil)
            } catch {
                handle.reset()
            }
        }
        pool.withLock { handles in
            if handles.count < Self.poolLimit { handles.append(handle) }
        }
    }

    // MARK: Engine thread

    private func run() {
        engineThread.store(Self.currentThread(), ordering: .relaxed)
        // What `top -H`, a debugger and /proc show: Foundation's `Thread.name` does not reach the system.
        nl_name_this_thread(Self.threadName)
        let executor = CurlEngineExecutor.shared.asUnownedTaskExecutor()
        while true {
            // Taking the work clears `wakePending`: whatever is submitted after this wakes us again.
            var work = takeInbox()
            if !work.jobs.isEmpty {
                // Tasks first, so the transfers they start go out this round; jobs they enqueue wait for the
                // next round.
                for job in work.jobs { job.runSynchronously(on: executor) }
                let more = takeInbox()
                work.started += more.started
                work.cancelled += more.cancelled
                work.resumed += more.resumed
                work.calls += more.calls
                work.closeIdleConnections = work.closeIdleConnections || more.closeIdleConnections
                work.limits = more.limits ?? work.limits
                if !more.jobs.isEmpty { inbox.withLock { $0.jobs.insert(contentsOf: more.jobs, at: 0) } }
            }
            if let limits = work.limits { applyLimits(limits) }
            if work.closeIdleConnections {
                epoch += 1
                releaseUnusedCaches()
            }
            for transfer in work.started { add(transfer) }
            for transfer in work.cancelled where transfer.isActive {
                finish(transfer, with: .failure(.cancelled(.init(request: transfer.plan.redactedDescription,
                                                                 reason: "it was cancelled while running"))))
            }
            for transfer in work.resumed where transfer.isActive { unpause(transfer) }
            for call in work.calls { call() }
            // Adding and resuming set libcurl's timer to now: the new transfers go out this round.
            nl_event_loop_run_timers(loop)
            collectFinished()
            // Finished transfers first: a stream whose head, body and end came in this round reaches
            // its reader whole, with one wake-up.
            if !dueDeliveries.isEmpty { deliverStreamedChunks() }
            let wait = min(expireDeadlines(), runDueTurns(), closeIdleConnectionsWhenDue(), releaseKeptBuffersWhenQuiet())
            // What this thread submitted itself did not wake it.
            if inbox.withLock({ $0.hasWork }) { continue }
            let ready = nl_event_loop_wait(loop, wait)
            // Finished transfers are collected at the top of the loop, once every ready socket was
            // handled: the task threads are woken once per round, not once per transfer.
            for index in 0..<ready {
                let socket = nl_event_loop_dispatch(loop, index)
                if socket >= 0, let owner = foreign[socket] { owner.engineTurn() }
            }
        }
    }

    /// Closes the connections unused for ``ConnectionLimits/idleTimeout``. Returns how long the
    /// engine may sleep (ms) before it looks again.
    private func closeIdleConnectionsWhenDue() -> Int32 {
        guard let idleSeconds else {
            idleSince = nil
            return 1000
        }
        let pruning = pruner.isIdle ? 1000 : pruner.prune(idleSeconds: idleSeconds, multi: multi)
        guard activeCount == 0 else {
            idleSince = nil
            return pruning
        }
        let now = ContinuousClock.now
        guard let since = idleSince else {
            idleSince = now
            return min(pruning, Int32(clamping: idleSeconds * 1000 + 1))
        }
        let due = since + .seconds(idleSeconds)
        guard due <= now else { return min(pruning, Self.milliseconds(due - now)) }
        epoch += 1
        releaseUnusedCaches()
        idleSince = .now + .seconds(1_000_000_000)  // closed: nothing to do until a transfer runs again
        return pruning
    }

    /// Frees the stream buffers kept for reuse (libcurl's receive buffers, the shared chunk pool's)
    /// once no transfer has run for ``keptBuffersLinger``: a process that stops streaming gives
    /// their memory back. Returns how long the engine may sleep (ms) before it looks again.
    private func releaseKeptBuffersWhenQuiet() -> Int32 {
        guard activeCount == 0 else {
            quietSince = nil
            return 1000
        }
        let now = ContinuousClock.now
        guard let since = quietSince else {
            quietSince = now
            return Self.milliseconds(Self.keptBuffersLinger)
        }
        let due = since + Self.keptBuffersLinger
        guard due <= now else { return Self.milliseconds(due - now) }
        StreamChunkPool.shared.releaseKept()
        nl_release_cached_buffers()
        if peakActive >= Self.burstTransfers {
            // What a burst of transfers (10,000 cancelled at once) freed stays in the C library's
            // arenas, hundreds of megabytes, until it is handed back.
            watched = [:]  // its storage too: a dictionary keeps its capacity
            nl_trim_heap()
        }
        peakActive = 0
        quietSince = now + .seconds(1_000_000_000)  // released: nothing to do until a transfer runs again
        return 1000
    }

    /// `duration` in whole milliseconds, rounded up (one more), for the event loop's wait.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }

    private func takeInbox() -> Inbox {
        inbox.withLock { inbox -> Inbox in
            var taken = Inbox()
            swap(&taken, &inbox)
            return taken
        }
    }

    private func add(_ transfer: CurlTransfer) {
        if transfer.isCancellationRequested.load(ordering: .acquiring) {
            complete(transfer, with: .failure(.cancelled(.init(request: transfer.plan.redactedDescription,
                                                               reason: "it was cancelled before it started"))))
            return
        }
        do throws(NetworkError) {
            try attachCache(to: transfer)
        } catch {
            complete(transfer, with: .failure(error.describingRequest(transfer.plan.redactedDescription)))
            return
        }
        // libcurl counts whole seconds and refuses above the option's value.
        transfer.handle.setMaximumConnectionAge(idleSeconds.map { max($0 - 1, 0) })
        let code = curl_multi_add_handle(multi, transfer.handle.raw)
        guard code == CURLM_OK else {
            let message = String(cString: curl_multi_strerror(code))
            complete(transfer, with: .failure(.transport(.init(
                request: transfer.plan.redactedDescription,
                reason: "libcurl could not start the transfer (\(message))"))))
            return
        }
        transfer.isActive = true
        activeCount += 1
        _ = nl_easy_setopt_pointer(transfer.handle.raw, CURLOPT_PRIVATE, Unmanaged.passRetained(transfer).toOpaque())
        if activeCount > peakActive { peakActive = activeCount }
        let hasDeadline = limitsConnections && transfer.stream == nil && transfer.timeoutMilliseconds > 0
        if hasDeadline { setTimeoutDeadline(of: transfer) }
        if transfer.stream != nil || transfer.idleTimeout != nil || hasDeadline {
            watched[transfer.handle.raw] = transfer
        }
    }

    /// The transfer's end if libcurl has not ended it (under ``ConnectionLimits``). Out of line:
    /// transfers without such a deadline do not touch the clock.
    @inline(never)
    private func setTimeoutDeadline(of transfer: CurlTransfer) {
        transfer.timeoutDeadline = .now + .milliseconds(transfer.timeoutMilliseconds)
    }

    /// Called for a stream's head, or its first chunk of a round: the caller gets the head, and the
    /// reader the round's chunks, when the round ends (``deliverStreamedChunks()``). Engine thread.
    func deliverAtEndOfRound(_ transfer: CurlTransfer) {
        dueDeliveries.append(transfer)
    }

    /// Hands the streams' chunks of this round to their readers: one wake-up per stream and round.
    private func deliverStreamedChunks() {
        for transfer in dueDeliveries {
            transfer.streamDeliveryDue = false
            if !transfer.headDelivered { transfer.deliverHead() }
            transfer.stream?.deliver()
        }
        dueDeliveries.removeAll(keepingCapacity: true)
    }

    /// Lets a paused transfer go on. libcurl may call its write callback before this returns,
    /// which is why no lock is held here.
    private func unpause(_ transfer: CurlTransfer) {
        transfer.willResume()
        let code = curl_easy_pause(transfer.handle.raw, Self.pauseContinue)
        guard code == CURLE_OK else {
            finish(transfer, with: .failure(.transport(.init(
                request: transfer.plan.redactedDescription,
                reason: "libcurl could not resume the paused transfer (\(String(cString: curl_easy_strerror(code))))"))))
            return
        }
    }

    /// CURLPAUSE_CONT: receive and send both go on (a macro Swift does not import).
    private static let pauseContinue = Int32(CURLPAUSE_RECV_CONT | CURLPAUSE_SEND_CONT)

    /// Fails the transfers whose deadline passed; returns how long the engine may sleep (ms), at most
    /// a second.
    private func expireDeadlines() -> Int32 {
        guard !watched.isEmpty else { return 1000 }
        let now = ContinuousClock.now
        var next = now + .seconds(1)
        for transfer in watched.values {
            if let deadline = transfer.timeoutDeadline {
                // A transfer waiting for a free connection under the limits: libcurl does not end it.
                let backstop = deadline + Self.timeoutBackstop
                if backstop <= now {
                    finish(transfer, with: .failure(transfer.waitedForConnectionError(limits: limits)))
                    continue
                }
                if backstop < next { next = backstop }
            }
            guard let deadline = transfer.streamDeadline else { continue }
            if deadline <= now {
                finish(transfer, with: .failure(transfer.silenceError()))
            } else if deadline < next {
                next = deadline
            }
        }
        return Self.milliseconds(next - now)
    }

    /// How long after its timeout the engine ends a transfer waiting for a connection.
    private static let timeoutBackstop = Duration.milliseconds(100)

    private func collectFinished() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            if pruner.finish(easy, multi: multi) { continue }
            // A WebSocket's handshake: its handle has no transfer as CURLOPT_PRIVATE.
            if !connecting.isEmpty, let connected = connecting.removeValue(forKey: easy) {
                connected(message.pointee.data.result)
                continue
            }
            var context: UnsafeMutableRawPointer?
            guard nl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context) == CURLE_OK, let context else { continue }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            let code = message.pointee.data.result
            guard transfer.stream != nil else {
                finish(transfer, with: transfer.result(for: code))
                continue
            }
            // A stream's response is its head, built when the head is handed over (takeHead): its
            // end needs only whether it failed.
            removeFromMulti(transfer)
            completeStream(transfer, failure: transfer.streamFailure(for: code))
        }
    }

    private func finish(_ transfer: CurlTransfer, with result: consuming Result<HTTPResponse, NetworkError>) {
        removeFromMulti(transfer)
        complete(transfer, with: result)
    }

    private func removeFromMulti(_ transfer: CurlTransfer) {
        if !watched.isEmpty { watched[transfer.handle.raw] = nil }
        guard transfer.isActive else { return }
        _ = curl_multi_remove_handle(multi, transfer.handle.raw)
        transfer.isActive = false
        activeCount -= 1
        // A pooled handle must not keep pointing at a transfer that may be gone.
        _ = nl_easy_setopt_pointer(transfer.handle.raw, CURLOPT_PRIVATE, nil)
        Unmanaged.passUnretained(transfer).release()  // the reference `add` took; the caller holds its own
    }

    private func complete(_ transfer: CurlTransfer, with result: consuming Result<HTTPResponse, NetworkError>) {
        guard transfer.stream != nil else {
            transfer.upload?.stop()
            let completion = transfer.completion
            transfer.completion = nil
            detachCache(from: transfer)
            recycle(transfer.handle, after: transfer)
            completion?(result)  // its last use: the response moves to the waiting task
            return
        }
        switch consume result {
        case .success: completeStream(transfer, failure: nil)
        case .failure(let error): completeStream(transfer, failure: error)
        }
    }

    /// Ends a stream's transfer: well (`failure` is `nil`), or with `failure`. Only a transfer
    /// with a stream comes here (``complete(_:with:)`` ends the others).
    private func completeStream(_ transfer: CurlTransfer, failure: NetworkError?) {
        transfer.upload?.stop()
        guard let stream = transfer.stream else { return }
        guard let error = failure else {
            // Ended normally: its cookies are written (a jar's file), its handle is back in the
            // pool (libcurl frees a receive buffer at the end of a transfer) and its body complete
            // before the reader can see its end, or its head if that came in this round too: a
            // reader then takes such a body whole at once (``ByteStream/takeArrivedBody()``). A
            // stream that ends before its headers were complete delivers what it has.
            let head = transfer.takeHead()  // read from the handle before detaching can reset it
            detachCache(from: transfer)
            recycle(transfer.handle, after: transfer)
            stream.finish(nil)
            head?()
            return
        }
        // A head that was complete goes first: the failure then reaches the reader of the body.
        // A stream stopped early may keep its receive buffer: its handle is not pooled.
        if transfer.headReady { transfer.deliverHead() }
        let completion = transfer.completion
        transfer.completion = nil
        detachCache(from: transfer)
        completion?(.failure(error))
        stream.finish(error)
    }

    private func attachCache(to transfer: CurlTransfer) throws(NetworkError) {
        let pinGeneration = transfer.pinning?.generation ?? 0
        newestPinGeneration = max(newestPinGeneration, pinGeneration)
        let serverTrust = transfer.options.tls?.trustCallback?.number ?? 0
        if serverTrust != 0, !recentTrustCallbacks.contains(serverTrust) {
            // Callbacks made anew for each request must not keep a cache each: the newest few stay.
            recentTrustCallbacks.append(serverTrust)
            if recentTrustCallbacks.count > 8 { recentTrustCallbacks.removeFirst() }
        }
        let resolving = ConnectionCacheKey.Resolving(transfer.options.table)
        if let resolving, !recentResolvings.contains(resolving) {
            // Entries made anew for each request must not keep a cache each: the newest few stay.
            recentResolvings.append(resolving)
            if recentResolvings.count > 8 { recentResolvings.removeFirst() }
        }
        let key = ConnectionCacheKey(pinGeneration: pinGeneration, epoch: epoch, clientIdentity: transfer.clientIdentity?.number ?? 0,
                                     serverTrust: serverTrust, resolving: resolving)
        if let jar = transfer.options.cookieJar {
            // The manager's cookie store: its share holds the cookies and this key's connections.
            let share = try jar.share(for: key)
            try transfer.handle.set(CURLOPT_SHARE, pointer: share.raw)
            transfer.cookieShare = share
            if idleSeconds != nil { pruner.attached(share) }
            return
        }
        if let index = caches.firstIndex(where: { $0.key == key }) {
            try transfer.handle.set(CURLOPT_SHARE, pointer: caches[index].cache.raw)
            caches[index].users += 1
            if idleSeconds != nil { pruner.attached(caches[index].cache) }
        } else {
            let cache = try CurlShare()
            try transfer.handle.set(CURLOPT_SHARE, pointer: cache.raw)
            caches.append((key, cache, 1))
            if idleSeconds != nil { pruner.attached(cache) }
        }
        transfer.cacheKey = key
        if caches.count > 2 { releaseUnusedCaches() }
    }

    private func detachCache(from transfer: CurlTransfer) {
        // A transfer removed before its DNS over HTTPS lookups ended leaves them in the multi
        // handle, holding its share (libcurl 7.88's probes inherit it): a share released then
        // cannot be cleaned up and leaks with its connections. A reset ends the lookups.
        let looksUp = transfer.options.table.dnsOverHTTPS != nil
        if let share = transfer.cookieShare {
            if idleSeconds != nil { pruner.detached(share) }
            if let file = transfer.options.cookieJar?.file {
                // Persisting is best effort: a file that cannot be written is not the request's failure.
                try? CookieJar.flush(transfer.handle, to: file)
            }
            try? transfer.handle.set(CURLOPT_SHARE, pointer: nil)
            if looksUp { transfer.handle.reset() }
            transfer.cookieShare = nil
            return
        }
        guard let key = transfer.cacheKey, let index = caches.firstIndex(where: { $0.key == key }) else { return }
        transfer.cacheKey = nil
        try? transfer.handle.set(CURLOPT_SHARE, pointer: nil)
        if looksUp { transfer.handle.reset() }
        if idleSeconds != nil { pruner.detached(caches[index].cache) }
        caches[index].users -= 1
        if caches[index].users == 0 && !isCurrent(key) { caches.remove(at: index) }
    }

    /// A cache new transfers may still get: the current epoch, and no pins or the newest ones.
    private func isCurrent(_ key: ConnectionCacheKey) -> Bool {
        key.epoch == epoch && (key.pinGeneration == 0 || key.pinGeneration == newestPinGeneration)
            && (key.serverTrust == 0 || recentTrustCallbacks.contains(key.serverTrust))
            && (key.resolving.map { recentResolvings.contains($0) } ?? true)
    }

    /// Frees the caches no transfer uses and none will get, closing their connections.
    private func releaseUnusedCaches() {
        caches.removeAll { $0.users == 0 && !isCurrent($0.key) }
    }
}

/// What the engine thread drives beside libcurl's transfers (a WebSocket once connected): a socket
/// it watches and a time it keeps. Engine thread only.
protocol EngineDriven: AnyObject {
    /// The socket is ready, the time came, or the owner asked for a turn: it looks at its state again.
    func engineTurn()
}

// MARK: Engine thread: connections that are not transfers

extension CurlEngine {
    /// Adds a CONNECT_ONLY transfer: `connected` runs with libcurl's result, and the handle stays
    /// in the multi handle, which holds its connection, until ``release(_:)``.
    func connect(_ transfer: CurlTransfer, connected: @escaping (CURLcode) -> Void) -> CURLMcode {
        let code = curl_multi_add_handle(multi, transfer.handle.raw)
        if code == CURLM_OK { connecting[transfer.handle.raw] = connected }
        return code
    }

    /// Takes a CONNECT_ONLY transfer out of the multi handle, which closes its connection.
    func release(_ transfer: CurlTransfer) {
        connecting[transfer.handle.raw] = nil
        _ = curl_multi_remove_handle(multi, transfer.handle.raw)  // fails only for a handle not added
    }

    /// Watches `socket`, which libcurl let go of, for `owner`: its next readiness for what is asked
    /// gives `owner` one turn; neither keeps it quiet. `false` when memory ran out.
    func watch(_ socket: curl_socket_t, reading: Bool, writing: Bool, for owner: any EngineDriven) -> Bool {
        guard nl_event_loop_watch(loop, socket, reading ? 1 : 0, writing ? 1 : 0) == 0 else { return false }
        foreign[socket] = owner
        return true
    }

    /// Forgets `socket` before it closes: its number may be libcurl's next.
    func unwatch(_ socket: curl_socket_t) {
        guard foreign.removeValue(forKey: socket) != nil else { return }
        nl_event_loop_unwatch(loop, socket)
    }

    /// Gives `owner` a turn at `due` (replacing any earlier request); `nil`: none.
    func schedule(_ owner: any EngineDriven, at due: ContinuousClock.Instant?) {
        turns[ObjectIdentifier(owner)] = due.map { ($0, owner) }
    }

    /// Gives the owners whose time came their turn; returns how long the engine may sleep (ms).
    func runDueTurns() -> Int32 {
        guard !turns.isEmpty else { return 1000 }
        var now = ContinuousClock.now
        if turns.values.contains(where: { $0.due <= now }) {  // most rounds: none, and nothing is allocated
            for (key, entry) in turns.filter({ $0.value.due <= now }) {
                turns[key] = nil  // a turn is used up; the owner asks for the next one
                entry.owner.engineTurn()
            }
            now = .now
        }
        var next = now + .seconds(1)
        for entry in turns.values where entry.due < next { next = entry.due }
        return next <= now ? 0 : Self.milliseconds(next - now)
    }
}
