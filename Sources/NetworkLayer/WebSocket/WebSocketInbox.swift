internal import CNetworkLayerCurl
import Foundation

/// The messages received and not yet read, bounded: whoever receives (the connection's thread, a
/// mock peer) stops while ``hasRoom`` is false, and is told through `onRoom` when the reader
/// made room. The end of the socket comes after the messages before it.
final class WebSocketInbox: Sendable {
    /// Room for about this many bytes of messages (always room for one more when empty).
    static let capacity = 1 << 20

    enum End: Sendable {
        case closed
        case failed(NetworkError)
    }

    private struct State {
        var messages: [WebSocketMessage] = []
        var head = 0
        var bytes = 0
        var end: End?
        var reader: UnsafeContinuation<Result<WebSocketMessage?, NetworkError>, Never>?
        var roomWaiters: [UnsafeContinuation<Void, Never>] = []
    }
    private let state = Protected(State())
    /// Called (off the lock) when a read brought the inbox below its capacity.
    private let onRoom: @Sendable () -> Void

    init(onRoom: @escaping @Sendable () -> Void = {}) {
        self.onRoom = onRoom
    }

    /// Whether another message may be received now.
    var hasRoom: Bool { state.withLock { $0.bytes < Self.capacity && $0.end == nil } }

    /// Adds a message for the reader; dropped when the inbox has ended.
    func push(_ message: WebSocketMessage) {
        push(contentsOf: CollectionOfOne(message))
    }

    /// Adds messages in order, with one lock and at most one wake-up of the reader (the rest wait
    /// for it in the inbox); dropped when the inbox has ended.
    func push(contentsOf messages: some Collection<WebSocketMessage>) {
        guard let first = messages.first else { return }
        let reader = state.withLock { state -> UnsafeContinuation<Result<WebSocketMessage?, NetworkError>, Never>? in
            guard state.end == nil else { return nil }
            let reader = state.reader
            state.reader = nil
            for message in reader == nil ? messages[...] : messages.dropFirst() {
                state.messages.append(message)
                state.bytes += message.byteCount
            }
            return reader
        }
        if let reader {
            nl_tsan_release(Unmanaged.passUnretained(self).toOpaque())  // see `next`
            reader.resume(returning: .success(first))
        }
    }

    /// Ends the inbox after the messages in it; the first end counts.
    func finish(_ end: End) {
        let (reader, waiters) = state.withLock { state -> (UnsafeContinuation<Result<WebSocketMessage?, NetworkError>, Never>?, [UnsafeContinuation<Void, Never>]) in
            guard state.end == nil else { return (nil, []) }
            state.end = end
            defer { state.reader = nil; state.roomWaiters = [] }
            return (state.reader, state.roomWaiters)
        }
        if let reader {
            nl_tsan_release(Unmanaged.passUnretained(self).toOpaque())
            switch end {
            case .closed: reader.resume(returning: .success(nil))
            case .failed(let error): reader.resume(returning: .failure(error))
            }
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether the inbox has ended (messages may still wait to be read).
    var hasEnded: Bool { state.withLock { $0.end != nil } }

    /// The next message, `nil` after a close, or the failure that ended the socket. `onCancel`
    /// runs when the reading task is cancelled while it waits; the wait then ends with `cancelled`.
    nonisolated(nonsending) func next(onCancel: @escaping @Sendable () -> Void, cancelled: @escaping @Sendable () -> NetworkError) async throws(NetworkError) -> WebSocketMessage? {
        if let ready = ready() { return try ready.get() }
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<WebSocketMessage?, NetworkError>, Never>) in
                if let ready = ready() { return continuation.resume(returning: ready) }
                let waiting = state.withLock { state -> Bool in
                    guard state.end == nil, state.reader == nil, !Task.isCancelled else { return false }
                    state.reader = continuation
                    return true
                }
                if !waiting {
                    continuation.resume(returning: ready() ?? .failure(cancelled()))
                }
            }
        } onCancel: {
            let reader = state.withLock { state -> UnsafeContinuation<Result<WebSocketMessage?, NetworkError>, Never>? in
                defer { state.reader = nil }
                return state.reader
            }
            onCancel()
            reader?.resume(returning: .failure(cancelled()))
        }
        // A message resumed from another thread crossed the concurrency runtime, which
        // ThreadSanitizer cannot see into; the pair with `push` states the ordering it provides.
        nl_tsan_acquire(Unmanaged.passUnretained(self).toOpaque())
        return try result.get()
    }

    /// A message, or the end, if one is ready: what `next` returns without waiting.
    func ready() -> Result<WebSocketMessage?, NetworkError>? {
        let (result, madeRoom) = state.withLock { state -> (Result<WebSocketMessage?, NetworkError>?, Bool) in
            if state.head < state.messages.count {
                let message = state.messages[state.head]
                state.head += 1
                let wasFull = state.bytes >= Self.capacity
                state.bytes -= message.byteCount
                if state.head == state.messages.count {
                    state.messages.removeAll(keepingCapacity: state.messages.count < 1024)
                    state.head = 0
                } else if state.head >= 1024, state.head * 2 >= state.messages.count {
                    state.messages.removeFirst(state.head)
                    state.head = 0
                }
                return (.success(message), wasFull && state.bytes < Self.capacity)
            }
            switch state.end {
            case nil: return (nil, false)
            case .closed: return (.success(nil), false)
            case .failed(let error): return (.failure(error), false)
            }
        }
        if madeRoom {
            let waiters = state.withLock { state in
                defer { state.roomWaiters = [] }
                return state.roomWaiters
            }
            for waiter in waiters { waiter.resume() }
            onRoom()
        }
        return result
    }

    /// Waits until there is room for a message, or the inbox ended (a mock peer's `send`).
    nonisolated(nonsending) func waitForRoom() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let waits = state.withLock { state -> Bool in
                guard state.bytes >= Self.capacity, state.end == nil else { return false }
                state.roomWaiters.append(continuation)
                return true
            }
            if !waits { continuation.resume() }
        }
    }
}

extension WebSocketInbox.End {
    var isClosed: Bool {
        if case .closed = self { return true }
        return false
    }
}
