import Foundation

/// The consumer's side of one streamed response body: what ``ByteStream``, ``EventStream`` and
/// ``JSONLines`` read from. It also writes the stream's log line and record mode's copy.
///
/// It is held only by the response and the streams made from it (never by the producer), so its
/// `deinit` means nobody can read the body any more: then the transfer is cancelled. An iterator
/// holds a ``StreamIteration``, whose end ends the stream too.
final class StreamBody: Sendable {
    /// How a stream ended, for the log.
    enum Ending: Sendable {
        case finished
        case failed(NetworkError)
        case cancelled(String)
    }

    /// What the manager attaches before the stream is handed out.
    struct Observers: Sendable {
        var log: NetworkLog?
        var request: PreparedRequest?
        var started = ContinuousClock.now
        var recorder: StreamRecorder?
    }

    /// How an event stream's reconnection goes out again: down the call's chain from its follow-up
    /// step (its cache, network middlewares and wire, and the observers of its middlewares), with
    /// what its middlewares changed in the request. Set for a request with a ``ReconnectPolicy``.
    struct Route: Sendable {
        let chain: CallChain
        let observers: [any RequestObserver]
        let changes: MiddlewareChanges?
    }

    private struct State {
        var observers = Observers()
        var route: Route?
        /// Who waits for the end (``HTTPResponse/onBodyEnd(_:)``).
        var endHandlers: [@Sendable (ResponseBodyEnd) -> Void] = []
        /// Whether a reconnection may follow this body's end or failure: the end handlers then
        /// wait for the stream's end (``continueStream(from:)``, ``endStream(_:)``), not the body's.
        var holdsEnd = false
        /// The bytes of the stream's earlier bodies, before a reconnection.
        var earlierBytes: Int64 = 0
        var ending: Ending?
        var items = 0
        var bytes: Int64 = 0
        var previews: [String] = []
        var previewCharacters = 0
    }

    let buffer: StreamBuffer
    /// The request, to describe it in errors.
    let origin: RequestOrigin
    private let state = Protected(State())

    init(buffer: StreamBuffer, origin: RequestOrigin) {
        self.buffer = buffer
        self.origin = origin
    }

    deinit {
        cancel(because: "the stream was dropped before its end")
    }

    /// Attaches the log and record mode; call before the stream is handed out.
    func observe(_ observers: Observers) {
        state.withLock { $0.observers = observers }
    }

    var request: PreparedRequest? { state.withLock { $0.observers.request } }

    /// Where a reconnection goes; `nil` for a body that cannot be sent for again.
    var route: Route? {
        get { state.withLock { $0.route } }
        set { state.withLock { $0.route = newValue } }
    }

    /// A reconnection may follow: the end handlers wait for ``endStream(_:)`` or go on to the
    /// next body, unless the consumer cancels or the parser refuses the body.
    func holdEndForReconnection() {
        state.withLock { $0.holdsEnd = true }
    }

    /// This body is a reconnection's, after `previous`: it takes over the handlers waiting for
    /// the stream's end, and counts the earlier bodies' bytes in the end they are told.
    func continueStream(from previous: StreamBody) {
        let (handlers, bytes) = previous.state.withLock { state in
            defer { state.endHandlers = [] }
            return (state.endHandlers, state.earlierBytes + state.bytes)
        }
        state.withLock { state in
            state.holdsEnd = true
            state.earlierBytes = bytes
            state.endHandlers = handlers + state.endHandlers
        }
    }

    /// The stream ends with this body, which has ended already: the handlers waiting are told
    /// `error` (`nil`: the stream finished).
    func endStream(_ error: NetworkError?) {
        let (handlers, bytes) = state.withLock { state in
            defer { state.endHandlers = [] }
            return (state.endHandlers, state.earlierBytes + state.bytes)
        }
        let end = ResponseBodyEnd(byteCount: bytes, error: error)
        for handler in handlers { handler(end) }
    }

    /// Calls `handler` when the stream ends (at once if it has).
    func onEnd(_ handler: @escaping @Sendable (ResponseBodyEnd) -> Void) {
        let ended = state.withLock { state -> (Ending, Int64)? in
            guard let ending = state.ending else {
                state.endHandlers.append(handler)
                return nil
            }
            return (ending, state.earlierBytes + state.bytes)
        }
        if let (ending, bytes) = ended { handler(bodyEnd(ending, bytes: bytes)) }
    }

    private func bodyEnd(_ ending: Ending, bytes: Int64) -> ResponseBodyEnd {
        switch ending {
        case .finished: ResponseBodyEnd(byteCount: bytes, error: nil)
        case .failed(let error): ResponseBodyEnd(byteCount: bytes, error: error)
        case .cancelled(let reason): ResponseBodyEnd(byteCount: bytes, error: .cancelled(.init(request: origin.description, reason: reason)))
        }
    }

    /// Whether items should be kept for the log's preview (only when a log would show it).
    var collectsPreviews: Bool { state.withLock { $0.observers.log?.showsBodies == true } }

    /// The chunks that arrived since the last call (at least one; waits for one), `nil` at the
    /// end of the body. Counts and records them.
    ///
    /// - Throws: the transfer's failure; ``NetworkError/cancelled`` when the calling task is cancelled.
    func next(isolation: isolated (any Actor)? = #isolation) async throws(NetworkError) -> [Data]? {
        let origin = self.origin
        let taken = await buffer.next(isolation: isolation, cancelled: .cancelled(.init(
            request: origin.description, reason: "the task reading the stream was cancelled")))
        switch taken {
        case .chunks(let chunks):
            took(chunks)
            return chunks
        case .finished:
            end(.finished, isFinal: false)
            return nil
        case .failed(let error):
            end(.failed(error), isFinal: false)
            throw error
        }
    }

    /// The rest of the body at once, when all of it has arrived: the stream then ends as a loop
    /// over its chunks reaching the end ends it (counted, recorded, logged). `nil`, taking
    /// nothing, while some of it is still to come: read it as a stream.
    func takeRest() -> [Data]? {
        guard let chunks = buffer.takeRest() else { return nil }
        took(chunks)
        note(items: chunks.count, previews: collectsPreviews ? ChunkParser().previews(of: chunks) : [])
        end(.finished, isFinal: false)
        return chunks
    }

    /// Counts and records chunks the reader took.
    private func took(_ chunks: [Data]) {
        var size: Int64 = 0
        for chunk in chunks { size += Int64(chunk.count) }
        let recorder = state.withLock { state -> StreamRecorder? in
            state.bytes += size
            return state.observers.recorder
        }
        if let recorder { for chunk in chunks { recorder.write(chunk) } }
    }

    /// Counts items parsed from what arrived (maybe more than the loop then takes), with previews.
    func note(items: Int, previews: [String] = []) {
        state.withLock { state in
            state.items += items
            for preview in previews where state.previewCharacters < NetworkLog.previewLimit {
                state.previews.append(preview)
                state.previewCharacters += preview.count + 1
            }
        }
    }

    /// Ends the stream because its parser refused the body: the transfer stops and the failure is logged.
    func fail(_ error: NetworkError) {
        buffer.cancel(error)
        end(.failed(error))
    }

    /// Ends the stream early: the transfer stops within the engine's next turn, releasing its connection.
    func cancel(because reason: String) {
        // A stream read to its end has nothing to cancel (and no error to describe).
        guard !buffer.isSettled else { return end(nil) }
        let error = NetworkError.cancelled(.init(request: origin.description, reason: reason))
        if buffer.cancel(error) { end(.cancelled(reason)) } else { end(nil) }
    }

    /// Reads up to `limit` bytes of the body, then ends the stream: the body a failing status
    /// keeps for its error. A failure while reading keeps what arrived.
    func collect(upTo limit: Int) async -> Data {
        var body = Data()
        reading: while body.count < limit {
            guard let chunks = try? await next() else { break }
            for chunk in chunks {
                body.append(chunk.prefix(limit - body.count))
                if body.count >= limit { break reading }
            }
        }
        cancel(because: "its status failed validation; the start of its body was kept for the error")
        return body
    }

    /// Logs the end once, and finishes record mode's copy. `nil` (an ending the consumer did not
    /// see, the stream having ended before) still closes the log if nothing did. An end that is
    /// not final (the body's end or failure as read) leaves the end handlers waiting when a
    /// reconnection may follow; a final one tells them, also after such an end.
    private func end(_ ending: Ending?, isFinal: Bool = true) {
        let ending = ending ?? .finished
        let (observers, items, bytes, earlierBytes, previews, handlers) = state.withLock { state
            -> (Observers?, Int, Int64, Int64, [String], [@Sendable (ResponseBodyEnd) -> Void]) in
            var handlers: [@Sendable (ResponseBodyEnd) -> Void] = []
            if isFinal || !state.holdsEnd { swap(&handlers, &state.endHandlers) }
            let observers = state.ending == nil ? state.observers : nil
            if state.ending == nil { state.ending = ending }
            return (observers, state.items, state.bytes, state.earlierBytes, state.previews, handlers)
        }
        if !handlers.isEmpty {
            let end = bodyEnd(ending, bytes: earlierBytes + bytes)
            for handler in handlers { handler(end) }
        }
        guard let observers else { return }
        observers.recorder?.finish(ending)
        if let request = observers.request {
            observers.log?.streamEnded(ending, of: request, items: items, bytes: bytes, previews: previews,
                                       elapsed: observers.started.duration(to: .now))
        }
    }
}

/// One iteration of a stream: ending it (the loop finished, threw, or was left early) ends the
/// stream. It belongs to one iterator (iterators are not `Sendable`).
final class StreamIteration {
    let body: StreamBody
    let collectsPreviews: Bool
    private var isDone = false

    init(body: StreamBody) {
        self.body = body
        collectsPreviews = body.collectsPreviews
    }

    deinit {
        if !isDone { body.cancel(because: "the loop over the stream ended before the stream did") }
    }

    /// The chunks that arrived since the last call, `nil` at the end (the iteration is then done).
    func next(isolation: isolated (any Actor)? = #isolation) async throws(NetworkError) -> [Data]? {
        guard !isDone else { return nil }
        do {
            guard let chunks = try await body.next(isolation: isolation) else {
                isDone = true
                return nil
            }
            return chunks
        } catch {
            isDone = true
            throw error
        }
    }

    func fail(_ error: NetworkError) -> NetworkError {
        isDone = true
        body.fail(error)
        return error
    }

    var done: Bool { isDone }
}
