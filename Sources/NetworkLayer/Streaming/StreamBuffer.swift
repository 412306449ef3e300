import Foundation

/// The bounded buffer between a stream's producer (libcurl's write callback on the engine
/// thread, or a mock's task) and its consumer (the task iterating the stream). Past
/// ``highWater`` buffered bytes the producer is told to pause; the consumer takes every waiting
/// chunk at once, so at most ``highWater`` bytes (and a chunk) wait here and as much again in
/// the consumer's batch.
///
/// Locking: every field is behind one lock, and no callback (a continuation, the producer's
/// resume or cancel) is ever called while holding it: resuming libcurl may call the write
/// callback, which takes this lock, synchronously.
final class StreamBuffer: Sendable {
    /// What the producer is told about a chunk it offers.
    enum Offer: Equatable {
        case accepted
        /// Not taken: the buffer is full. Offer it again after ``Control/resume``.
        case paused
        /// Not taken: the stream has ended (the consumer cancelled it).
        case refused
    }

    /// How the consumer reaches the producer. Set once, before any chunk flows.
    struct Control: Sendable {
        /// Called (off the lock) when a paused producer may go on.
        var resume: @Sendable () -> Void
        /// Called (off the lock) when the consumer ends the stream early.
        var cancel: @Sendable () -> Void
    }

    /// What the consumer gets for one call of ``next(isolation:cancelled:)``.
    enum Taken: Sendable {
        /// Every chunk that was waiting, in order (at least one).
        case chunks([Data])
        case finished
        case failed(NetworkError)
    }

    private enum End {
        case finished
        case failed(NetworkError)
    }

    private struct State {
        var chunks: [Data] = []
        var buffered = 0
        /// The bytes the producer has accepted into the chunk it is filling (not in `chunks` yet).
        var filling = 0
        var end: End?
        /// Whether the consumer was told the end (after that it only ever gets `.finished`).
        var endDelivered = false
        /// Whether the consumer ended the stream (the producer's end then changes nothing).
        var isCancelled = false
        var waiter: UnsafeContinuation<Taken, Never>?
        var producerPaused = false
        var resumeRequested = false
        var control: Control?
        var pauses = 0

        /// Every waiting chunk, or the end, or `nil` when there is neither; with the producer's
        /// resume when taking the chunks unpaused it (to be called off the lock).
        mutating func take() -> (Taken?, (@Sendable () -> Void)?) {
            if !chunks.isEmpty {
                var batch: [Data] = []
                swap(&batch, &chunks)
                buffered = 0
                var resume: (@Sendable () -> Void)?
                if producerPaused, !resumeRequested {
                    resumeRequested = true
                    resume = control?.resume
                }
                return (.chunks(batch), resume)
            }
            guard let end else { return (nil, nil) }
            if endDelivered { return (.finished, nil) }
            endDelivered = true
            switch end {
            case .finished: return (.finished, nil)
            case .failed(let error): return (.failed(error), nil)
            }
        }
    }

    /// The chunk the producer is filling: libcurl's pieces copied once, into storage the reader will own.
    private struct OpenChunk {
        var buffer: UnsafeMutableRawPointer?
        var count = 0
    }

    /// About 1 MB ahead of the consumer; beyond it the producer pauses.
    let highWater: Int
    private let state = Protected(State())
    /// The producer's side (the engine thread's; its own lock, never contended, keeps the
    /// class `Sendable`): the chunk being filled and where its storage comes from.
    private let open = Protected(OpenChunk())
    /// Where the chunks' storage comes from (internal for the tests of its reuse).
    let pool: StreamChunkPool
    /// An open chunk holding less than this at the end of a round is copied out at its size.
    private let smallChunk: Int

    /// - Parameter chunkSize: how large a chunk the producer's pieces are gathered into. At
    ///   ``StreamChunkPool/standardCapacity`` the storage comes from ``StreamChunkPool/shared``.
    init(highWater: Int = 1 << 20, chunkSize: Int = StreamChunkPool.standardCapacity) {
        self.highWater = highWater
        let chunkSize = max(chunkSize, 1)
        pool = chunkSize == StreamChunkPool.standardCapacity
            ? .shared : StreamChunkPool(capacity: chunkSize, keptLimit: max(2 * highWater / chunkSize + 2, 4))
        smallChunk = chunkSize / 8
    }

    deinit {
        open.withLock { open in if let buffer = open.buffer { pool.give(buffer) } }
    }

    /// Connects the producer. A stream the consumer already cancelled cancels the producer at once.
    func setControl(_ control: Control) {
        let cancelled = state.withLock { state -> Bool in
            guard state.end == nil else { return true }
            state.control = control
            return false
        }
        if cancelled { control.cancel() }
    }

    // MARK: Producer

    /// Offers a piece of the body (copied when accepted). Engine thread, inside libcurl's write
    /// callback; a waiting consumer is woken by ``deliver()`` at the end of the round, not here.
    /// Room is checked and the copy made outside the lock, so `next` never waits for a copy; only
    /// this thread adds bytes, so room found stays room.
    func offer(_ bytes: UnsafeRawBufferPointer) -> Offer {
        let refusal = state.withLock { state -> Offer? in
            guard state.end == nil else { return .refused }
            guard state.buffered + state.filling < highWater else {
                state.producerPaused = true
                state.pauses += 1
                return .paused
            }
            state.filling += bytes.count
            return nil
        }
        if let refusal {
            if refusal == .refused { discardOpenChunk() }
            return refusal
        }
        guard !bytes.isEmpty else { return .accepted }
        var full: Data?
        let copied = open.withLock { open -> Bool in
            if open.count + bytes.count > pool.capacity, let buffer = open.buffer {
                full = pool.data(owning: buffer, count: open.count)
                open.buffer = nil
                open.count = 0
            }
            guard bytes.count <= pool.capacity else { return false }
            if open.buffer == nil { open.buffer = pool.take() }
            guard let buffer = open.buffer, let source = bytes.baseAddress else { return false }
            (buffer + open.count).copyMemory(from: source, byteCount: bytes.count)
            open.count += bytes.count
            return true
        }
        if let full {
            // A full chunk goes to a waiting reader now, not at the end of the round.
            publish(full)
            wakeWaiter()
        }
        // A piece larger than a chunk, or no memory for a new chunk: a chunk of its own.
        if !copied { publish(Data(bytes)) }
        // Accepted even if the consumer cancelled meanwhile: its cancel stops the transfer, and
        // the next offer is refused.
        return .accepted
    }

    /// Moves a chunk the producer filled into `chunks` (its bytes were counted as `filling`).
    private func publish(_ chunk: Data) {
        state.withLock { state in
            state.filling -= chunk.count
            guard state.end == nil else { return }
            state.chunks.append(chunk)
            state.buffered += chunk.count
        }
    }

    /// Publishes the chunk being filled, if any: a small one as a copy at its size, its storage
    /// back in the pool at once (a stream's next round, or another stream, takes it again; a small
    /// answer never holds a chunk's storage for its whole life).
    private func publishOpenChunk() {
        var spare: UnsafeMutableRawPointer?
        let chunk = open.withLock { open -> Data? in
            guard let buffer = open.buffer, open.count > 0 else { return nil }
            defer { open.count = 0 }
            open.buffer = nil
            guard open.count >= smallChunk else {
                spare = buffer
                return Data(bytes: buffer, count: open.count)
            }
            return pool.data(owning: buffer, count: open.count)
        }
        if let spare { pool.give(spare) }
        if let chunk { publish(chunk) }
    }

    private func discardOpenChunk() {
        let buffer = open.withLock { open -> UnsafeMutableRawPointer? in
            defer { open = OpenChunk() }
            return open.buffer
        }
        if let buffer { pool.give(buffer) }
        state.withLock { $0.filling = 0 }
    }

    /// Hands the chunk being filled over and wakes a waiting consumer: the end of a round of I/O.
    func deliver() {
        publishOpenChunk()
        wakeWaiter()
    }

    private func wakeWaiter() {
        let (waiter, taken, resume) = state.withLock { state -> (UnsafeContinuation<Taken, Never>?, Taken?, (@Sendable () -> Void)?) in
            guard let waiter = state.waiter, !state.chunks.isEmpty else { return (nil, nil, nil) }
            state.waiter = nil
            let (taken, resume) = state.take()
            return (waiter, taken, resume)
        }
        guard let waiter, let taken else { return }
        waiter.resume(returning: taken)
        resume?()
    }

    /// Appends a chunk whatever the buffer holds (mocks: the body is in memory). `false` once ended.
    @discardableResult
    func append(_ chunk: Data) -> Bool {
        guard !chunk.isEmpty else { return true }
        let (accepted, waiter) = state.withLock { state -> (Bool, UnsafeContinuation<Taken, Never>?) in
            guard state.end == nil else { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, waiter)
            }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            return (true, nil)
        }
        waiter?.resume(returning: .chunks([chunk]))
        return accepted
    }

    /// The body ended: completely (`failure` is `nil`) or with `failure`. The consumer gets the
    /// buffered chunks first. Later calls, and calls after the consumer cancelled, change nothing.
    func finish(_ failure: NetworkError?) {
        publishOpenChunk()
        let (waiter, taken) = state.withLock { state -> (UnsafeContinuation<Taken, Never>?, Taken?) in
            state.control = nil
            if state.end == nil { state.end = failure.map { .failed($0) } ?? .finished }
            guard let waiter = state.waiter else { return (nil, nil) }
            state.waiter = nil
            // The chunks of the last round, if not delivered yet, come before the end (the
            // producer is gone: nothing to resume).
            return (waiter, state.take().0)
        }
        waiter?.resume(returning: taken ?? .finished)
    }

    /// The engine is about to resume a paused producer (`curl_easy_pause(CONT)`), which may offer chunks.
    func willResume() {
        state.withLock { state in
            state.producerPaused = false
            state.resumeRequested = false
        }
    }

    // MARK: Consumer

    /// Every chunk waiting (at least one), the end (`.finished`) or the failure. Waits without blocking a thread;
    /// cancelling the calling task cancels the stream and returns `.failed(.cancelled)`.
    func next(isolation: isolated (any Actor)? = #isolation, cancelled: @autoclosure @Sendable () -> NetworkError) async -> Taken {
        if Task.isCancelled { cancel(cancelled()) }
        if let taken = take() { return taken }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation(isolation: isolation) { (continuation: UnsafeContinuation<Taken, Never>) in
                let ready = state.withLock { state -> Bool in
                    guard !state.chunks.isEmpty || state.end != nil else {
                        state.waiter = continuation
                        return false
                    }
                    return true
                }
                if ready { continuation.resume(returning: take() ?? .finished) }
            }
        } onCancel: {
            cancel(cancelled())
        }
    }

    /// Every waiting chunk and the end at once, when the body ended normally and no chunk is
    /// still being filled; `nil`, taking nothing, otherwise.
    func takeRest() -> [Data]? {
        state.withLock { state -> [Data]? in
            guard case .finished = state.end, !state.endDelivered, state.filling == 0, state.waiter == nil else { return nil }
            state.endDelivered = true
            state.buffered = 0
            defer { state.chunks = [] }
            return state.chunks
        }
    }

    /// The waiting chunks or the end, else `nil`; resumes a paused producer when it takes chunks.
    private func take() -> Taken? {
        let (taken, resume) = state.withLock { $0.take() }
        resume?()
        return taken
    }

    /// Ends the stream from the consumer's side: buffered chunks are dropped, a waiting `next`
    /// returns `.failed(error)`, and a running producer is told to stop. `false` when the consumer
    /// had seen the end already.
    @discardableResult
    func cancel(_ error: NetworkError) -> Bool {
        let (changed, waiter, control) = state.withLock { state -> (Bool, UnsafeContinuation<Taken, Never>?, Control?) in
            guard !state.endDelivered, !state.isCancelled else { return (false, nil, nil) }
            state.end = .failed(error)
            state.isCancelled = true
            state.chunks = []
            state.buffered = 0
            let waiter = state.waiter
            state.waiter = nil
            if waiter != nil { state.endDelivered = true }
            let control = state.control
            state.control = nil
            return (true, waiter, control)
        }
        waiter?.resume(returning: .failed(error))
        control?.cancel()
        return changed
    }

    // MARK: Observation

    /// Whether ``cancel(_:)`` would change nothing: the reader has seen the end, or it was cancelled.
    var isSettled: Bool { state.withLock { $0.endDelivered || $0.isCancelled } }

    var hasEnded: Bool { state.withLock { $0.end != nil } }

    /// Bytes waiting for the consumer now (handed over, or in the chunk being filled).
    var bufferedBytes: Int { state.withLock { $0.buffered + $0.filling } }

    var pauseCount: Int { state.withLock { $0.pauses } }
}
