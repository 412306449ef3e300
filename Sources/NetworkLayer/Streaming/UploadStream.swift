import Foundation

/// The bounded buffer between a streamed request body's sequence and libcurl: what
/// ``RequestBody/stream(_:length:contentType:)`` becomes. The sequence is asked for a chunk only
/// below ``highWater`` buffered bytes; libcurl's read callback pauses the transfer
/// (`CURL_READFUNC_PAUSE`) when nothing is buffered, and the producer's next chunk resumes it.
///
/// Used once: a sequence can be iterated only once, so the first attempt ``claim()``s it. The
/// declared length is enforced both ways, and the last byte of a known length is handed over
/// only once the sequence has ended, so a body that turns out too long is never sent complete.
///
/// Locking: every field is behind one lock, and nothing (a continuation, the engine's resume) is
/// ever called while holding it.
final class UploadStream: Sendable {
    /// Runs the sequence, handing each chunk to `each` until it returns `false`.
    typealias Iteration = @Sendable (_ each: (Data) async -> Bool) async throws -> Void

    /// Why the body did not arrive whole.
    enum Failure: Sendable {
        case threw(any Error)
        /// The sequence produced more than the declared length (the count when it was noticed).
        case tooLong(produced: Int64)
        /// The sequence ended short of the declared length.
        case tooShort(produced: Int64)
    }

    enum Read: Equatable {
        case bytes(Int)
        case end
        /// Nothing buffered yet: pause the transfer until ``Control`` resumes it.
        case pause
        /// The body failed (see ``failure``) or the upload was stopped: abort the transfer.
        case abort
    }

    private struct State {
        var claimed = false
        var chunks: [Data] = []
        /// The first chunk not handed over completely, and how much of it was.
        var head = 0
        var offset = 0
        var buffered = 0
        var produced: Int64 = 0
        var handed: Int64 = 0
        var finished = false
        var failure: Failure?
        var stopped = false
        /// The producer, waiting for room (resumed with `false` when the upload stopped).
        var producerWaiting: UnsafeContinuation<Bool, Never>?
        /// Whether the read callback paused the transfer for want of bytes.
        var consumerPaused = false
        /// Resumes the paused transfer on the engine thread; dropped when the upload stops.
        var resume: (@Sendable () -> Void)?
        var producer: Task<Void, Never>?
        var peakBuffered = 0
        var pauses = 0

        /// The resume closure when the transfer is paused for want of bytes (clearing the pause), else `nil`.
        mutating func takeResume() -> (@Sendable () -> Void)? {
            guard consumerPaused else { return nil }
            consumerPaused = false
            return resume
        }
    }

    /// The declared length, or `nil` (sent chunked on HTTP/1.1).
    let length: Int64?
    /// The producer asks the sequence for more only below this many buffered bytes.
    let highWater: Int
    /// Chunks smaller than this are joined to a small last chunk instead of buffered alone.
    static let coalescingSize = 16 << 10
    private let iterate: Iteration
    private let state = Protected(State())

    /// Whether `iterate` makes a new sequence each time it runs (a factory,
    /// ``RequestBody/stream(length:contentType:_:)``): each attempt then sends ``fresh()``.
    let isRepeatable: Bool

    init(length: Int64?, highWater: Int = 1 << 20, isRepeatable: Bool = false, iterate: @escaping Iteration) {
        self.length = length
        self.highWater = highWater
        self.isRepeatable = isRepeatable
        self.iterate = iterate
    }

    /// An unclaimed body running the same iteration again: each transfer's, for a repeatable one.
    func fresh() -> UploadStream {
        UploadStream(length: length, highWater: highWater, isRepeatable: isRepeatable, iterate: iterate)
    }

    /// Takes the body for the one attempt that sends it; `false` if an attempt took it already.
    func claim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    // MARK: Live: a producer task and libcurl's read callback

    /// Starts iterating the sequence on a task of its own; `resume` (off the lock) lets a transfer
    /// paused for want of bytes go on. A stopped upload starts nothing.
    func start(resume: @escaping @Sendable () -> Void) {
        let task = Task.detached { [self] in
            do {
                try await iterate { chunk in await self.append(chunk) }
                end(nil)
            } catch {
                end(.threw(error))
            }
        }
        let stopped = state.withLock { state -> Bool in
            guard !state.stopped else { return true }
            state.resume = resume
            state.producer = task
            return false
        }
        if stopped { task.cancel() }
    }

    /// Buffers `chunk`, then waits for room below ``highWater``. `false` when the producer must
    /// stop (the upload stopped or the chunk broke the declared length).
    private func append(_ chunk: Data) async -> Bool {
        let (goOn, resume) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            guard !state.stopped, state.failure == nil else { return (false, nil) }
            state.produced += Int64(chunk.count)
            if let length, state.produced > length {
                state.failure = .tooLong(produced: state.produced)
                state.finished = true
                return (false, state.takeResume())
            }
            guard !chunk.isEmpty else { return (true, nil) }
            // Tiny chunks join the last small one: a million one-byte chunks are a few buffers.
            if chunk.count < Self.coalescingSize, let last = state.chunks.indices.last, last >= state.head,
               state.chunks[last].count < Self.coalescingSize {
                state.chunks[last].append(chunk)
            } else {
                state.chunks.append(chunk)
            }
            state.buffered += chunk.count
            state.peakBuffered = max(state.peakBuffered, state.buffered)
            return (true, state.takeResume())
        }
        resume?()
        guard goOn else { return false }
        return await room()
    }

    /// Suspends the producer while ``highWater`` bytes or more are buffered; `false` once stopped.
    private func room() async -> Bool {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
            let answer = state.withLock { state -> Bool? in
                if state.stopped || state.failure != nil { return false }
                if state.buffered < highWater { return true }
                state.producerWaiting = continuation
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// The sequence ended (`failure == nil`) or threw.
    private func end(_ failure: Failure?) {
        let resume = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.stopped, !state.finished else { return nil }
            state.finished = true
            if let failure {
                state.failure = failure
            } else if let length, state.produced < length {
                state.failure = .tooShort(produced: state.produced)
            }
            return state.takeResume()
        }
        resume?()
    }

    /// Copies buffered bytes into `buffer`. Engine thread, inside libcurl's read callback.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Read {
        let (read, producer) = state.withLock { state -> (Read, UnsafeContinuation<Bool, Never>?) in
            if state.stopped || state.failure != nil { return (.abort, nil) }
            var allowed = buffer.count
            if let length, !state.finished {
                // The last byte of a known length waits for the end of the sequence: a sequence
                // that goes on past it fails before the server has a complete body.
                allowed = Int(clamping: min(Int64(allowed), max(0, length - 1 - state.handed)))
            }
            var copied = 0
            while copied < allowed, state.head < state.chunks.count {
                let first = state.chunks[state.head]
                let count = min(allowed - copied, first.count - state.offset)
                let offset = state.offset
                first.withUnsafeBytes { bytes in
                    guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
                    (target + copied).copyMemory(from: source + offset, byteCount: count)
                }
                copied += count
                state.offset += count
                if state.offset == first.count {
                    state.chunks[state.head] = Data()
                    state.head += 1
                    state.offset = 0
                    if state.head == state.chunks.count {
                        state.chunks.removeAll(keepingCapacity: true)
                        state.head = 0
                    } else if state.head >= 64, state.head * 2 >= state.chunks.count {
                        state.chunks.removeFirst(state.head)
                        state.head = 0
                    }
                }
            }
            state.buffered -= copied
            state.handed += Int64(copied)
            var producer: UnsafeContinuation<Bool, Never>?
            if state.buffered < highWater, let waiting = state.producerWaiting {
                state.producerWaiting = nil
                producer = waiting
            }
            if copied > 0 { return (.bytes(copied), producer) }
            if state.finished, state.buffered == 0 { return (.end, producer) }
            state.consumerPaused = true
            state.pauses += 1
            return (.pause, producer)
        }
        producer?.resume(returning: true)
        return read
    }

    /// libcurl asks to rewind (to resend on a new connection): possible only before any byte went.
    func canRewind() -> Bool {
        state.withLock { $0.handed == 0 }
    }

    /// Ends the upload (the transfer is over): stops the producer, frees the buffer and drops the
    /// resume closure, which holds the transfer. Later calls change nothing.
    func stop() {
        let (producer, waiting) = state.withLock { state -> (Task<Void, Never>?, UnsafeContinuation<Bool, Never>?) in
            state.stopped = true
            state.chunks = []
            state.head = 0
            state.buffered = 0
            state.resume = nil
            defer { state.producer = nil; state.producerWaiting = nil }
            return (state.producer, state.producerWaiting)
        }
        waiting?.resume(returning: false)
        producer?.cancel()
    }

    var failure: Failure? { state.withLock { $0.failure } }

    var counts: (produced: Int64, handed: Int64) { state.withLock { ($0.produced, $0.handed) } }

    var statistics: (peakBuffered: Int, pauses: Int) { state.withLock { ($0.peakBuffered, $0.pauses) } }

    // MARK: Mock mode: the request's own task reads the whole body

    /// Reads the whole sequence in the calling task, keeping at most `limit` bytes; returns them
    /// (`nil` when the body was longer) and the total. Cancelling the task ends the iteration.
    func drain(keepingAtMost limit: Int) async -> (kept: Data?, total: Int64) {
        var kept: Data? = Data()
        var total: Int64 = 0
        do {
            try await iterate { chunk in
                total += Int64(chunk.count)
                if let length, total > length { return false }
                if let count = kept?.count, count + chunk.count <= limit { kept?.append(chunk) } else { kept = nil }
                return true
            }
            if let length, total > length {
                state.withLock { $0.failure = .tooLong(produced: total) }
            } else if let length, total < length {
                state.withLock { $0.failure = .tooShort(produced: total) }
            }
        } catch {
            state.withLock { $0.failure = .threw(error) }
        }
        state.withLock { state in
            state.produced = total
            state.handed = total
            state.finished = true
        }
        return (kept, total)
    }

    /// For a declared length of 0, which libcurl never reads: takes the body and reads the
    /// sequence in the calling task, throwing if it produces anything (or throws).
    func confirmEmpty(_ request: String) async throws(NetworkError) {
        guard claim() else { throw Self.alreadySent(request: request) }
        _ = await drain(keepingAtMost: 0)
        if let failure { throw error(for: failure, request: request) }
    }

    // MARK: Errors

    /// The error of an attempt that finds the body taken: a sequence is read only once.
    static func alreadySent(request: String) -> NetworkError {
        .invalidRequest(.init(request: request, reason:
            "its streamed body was sent once already, and a sequence can be read only once; "
                + "give each request (and each performance of one) a body with a new sequence"))
    }

    /// The error the request fails with for `failure`: the sequence's own error kept as
    /// `underlyingError` (a `CancellationError` is `.cancelled`), or a length mismatch explained.
    func error(for failure: Failure, request: String) -> NetworkError {
        switch failure {
        case .threw(let error):
            return .thrown(error, by: "the request body's sequence", request: request)
        case .tooLong(let produced):
            return .invalidRequest(.init(request: request, reason:
                "the body's sequence produced more than the declared length of \(length ?? 0) bytes (at least \(produced)); "
                    + "the request was stopped before the body was complete. Declare the exact length, or length: nil to send it chunked"))
        case .tooShort(let produced):
            return .invalidRequest(.init(request: request, reason:
                "the body's sequence ended after \(produced) bytes, short of the declared length of \(length ?? 0) bytes; "
                    + "the request was stopped before the body was complete. Declare the exact length, or length: nil to send it chunked"))
        }
    }
}
