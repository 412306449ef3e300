import Foundation

/// The bounded buffer between a stream's producer (libcurl's write callback on the engine
/// thread, or a mock's task) and its consumer (the task iterating the stream).
///
/// The producer offers chunks; past ``highWater`` buffered bytes it is told to pause (libcurl
/// then keeps the chunk and stops reading the socket). The consumer takes chunks in order; when
/// it has drained a paused buffer down to ``lowWater`` it asks the producer, once, to resume.
/// Either side can end the stream: the producer with the end of the body or its failure, the
/// consumer by cancelling (then the producer is told to stop, and buffered chunks are freed).
///
/// Locking: every field is behind one lock, and no callback (a continuation, the producer's
/// resume or cancel) is ever called while holding it: resuming libcurl may call the write
/// callback, which takes this lock, synchronously.
final class StreamBuffer: Sendable {
    /// What the producer is told about a chunk it offers.
    enum Offer: Equatable {
        /// Taken.
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

    /// What the consumer gets for one call of ``next(isolation:)``.
    enum Taken: Sendable {
        case chunk(Data)
        case finished
        case failed(NetworkError)
    }

    private enum End {
        case finished
        case failed(NetworkError)
    }

    private struct State {
        var chunks: [Data] = []
        var head = 0
        var buffered = 0
        var end: End?
        /// Whether the consumer was told the end (after that it only ever gets `.finished`).
        var endDelivered = false
        /// Whether the consumer ended the stream (the producer's end then changes nothing).
        var isCancelled = false
        var waiter: UnsafeContinuation<Taken, Never>?
        var producerPaused = false
        var resumeRequested = false
        var control: Control?
        /// How often the producer was paused, for the tests and the log.
        var pauses = 0

        mutating func popChunk() -> Data? {
            guard head < chunks.count else { return nil }
            let chunk = chunks[head]
            chunks[head] = Data()
            head += 1
            buffered -= chunk.count
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= chunks.count {
                chunks.removeFirst(head)
                head = 0
            }
            return chunk
        }
    }

    /// About 1 MB ahead of the consumer; beyond it the producer pauses.
    let highWater: Int
    /// A paused producer resumes once the consumer has drained the buffer to this.
    let lowWater: Int
    private let state = Protected(State())

    init(highWater: Int = 1 << 20, lowWater: Int = 256 << 10) {
        self.highWater = highWater
        self.lowWater = min(lowWater, highWater)
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

    /// Offers a chunk (copied when accepted). Engine thread, inside libcurl's write callback.
    ///
    /// Room is checked first and the copy made outside the lock, so a consumer's `next` never
    /// waits for a 64 KB copy and a chunk the buffer pauses on (libcurl offers it again after the
    /// resume) is not copied in vain. Only this thread adds chunks, so room found stays room.
    func offer(_ bytes: UnsafeRawBufferPointer) -> Offer {
        let refusal = state.withLock { state -> Offer? in
            guard state.end == nil else { return .refused }
            guard state.buffered < highWater else {
                state.producerPaused = true
                state.pauses += 1
                return .paused
            }
            return nil
        }
        if let refusal { return refusal }
        let chunk = Data(bytes)
        let (offer, waiter) = state.withLock { state -> (Offer, UnsafeContinuation<Taken, Never>?) in
            guard state.end == nil else { return (.refused, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (.accepted, waiter)
            }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            return (.accepted, nil)
        }
        waiter?.resume(returning: .chunk(chunk))
        return offer
    }

    /// Appends a chunk whatever the buffer holds: for producers whose whole body is in memory
    /// already (mocks). `false` when the stream has ended.
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
        waiter?.resume(returning: .chunk(chunk))
        return accepted
    }

    /// The body ended: completely (`failure` is `nil`) or with `failure`. The consumer gets the
    /// buffered chunks first. Later calls, and calls after the consumer cancelled, change nothing.
    func finish(_ failure: NetworkError?) {
        let waiter = state.withLock { state -> UnsafeContinuation<Taken, Never>? in
            state.control = nil
            if state.end == nil { state.end = failure.map { .failed($0) } ?? .finished }
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            return waiter
        }
        // A waiting consumer has taken every chunk already.
        waiter?.resume(returning: takeEnd())
    }

    /// The engine is about to resume a paused producer (`curl_easy_pause(CONT)`), which may
    /// offer chunks before it returns.
    func willResume() {
        state.withLock { state in
            state.producerPaused = false
            state.resumeRequested = false
        }
    }

    // MARK: Consumer

    /// The next chunk, the end (`.finished`) or the failure. Waits without blocking a thread;
    /// cancelling the calling task cancels the stream and returns `.failed(.cancelled)`.
    func next(isolation: isolated (any Actor)? = #isolation, cancelled: @autoclosure @Sendable () -> NetworkError) async -> Taken {
        if Task.isCancelled { cancel(cancelled()) }
        if let taken = take() { return taken }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation(isolation: isolation) { (continuation: UnsafeContinuation<Taken, Never>) in
                let ready = state.withLock { state -> Bool in
                    guard state.head < state.chunks.count || state.end != nil else {
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

    /// A chunk or the end when one is ready, else `nil`; asks a paused producer to resume when
    /// the buffer has drained to the low-water mark.
    private func take() -> Taken? {
        let (taken, resume) = state.withLock { state -> (Taken?, (@Sendable () -> Void)?) in
            if let chunk = state.popChunk() {
                var resume: (@Sendable () -> Void)?
                if state.producerPaused, !state.resumeRequested, state.buffered <= lowWater {
                    state.resumeRequested = true
                    resume = state.control?.resume
                }
                return (.chunk(chunk), resume)
            }
            guard let end = state.end else { return (nil, nil) }
            if state.endDelivered { return (.finished, nil) }
            state.endDelivered = true
            switch end {
            case .finished: return (.finished, nil)
            case .failed(let error): return (.failed(error), nil)
            }
        }
        resume?()
        return taken
    }

    /// The end for a consumer that was waiting (so no chunk is buffered).
    private func takeEnd() -> Taken {
        take() ?? .finished
    }

    /// Ends the stream from the consumer's side: buffered chunks are dropped, a waiting `next`
    /// returns `.failed(error)`, and the producer, if still running, is told to stop. A body that
    /// had arrived completely but was not read to its end ends this way too. `false` when the
    /// consumer had seen the end already.
    @discardableResult
    func cancel(_ error: NetworkError) -> Bool {
        let (changed, waiter, control) = state.withLock { state -> (Bool, UnsafeContinuation<Taken, Never>?, Control?) in
            guard !state.endDelivered, !state.isCancelled else { return (false, nil, nil) }
            state.end = .failed(error)
            state.isCancelled = true
            state.chunks = []
            state.head = 0
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

    /// Whether the stream has ended (either side).
    var hasEnded: Bool { state.withLock { $0.end != nil } }

    /// Bytes waiting for the consumer now.
    var bufferedBytes: Int { state.withLock { $0.buffered } }

    /// How often the producer was told to pause.
    var pauseCount: Int { state.withLock { $0.pauses } }
}
