import Dispatch
import Foundation
import Synchronization

/// A registration for a manager's ``CallEvent``s; ``cancel()`` ends it.
///
/// Events wait in a buffer of at most `bufferLimit` events for the handler, which runs on a
/// serial queue of its own, one event at a time, in order. A handler that blocks holds up only
/// itself: once its buffer is full, further events are dropped and counted in
/// ``droppedEvents``. Requests never wait for a handler.
public final class EventSubscription: Sendable {
    private enum Delivery: Sendable {
        case handler(@Sendable (CallEvent) -> Void, DispatchQueue)
        case stream(AsyncStream<CallEvent>.Continuation)
    }

    /// A queue: `events[head...]` wait; the delivered prefix goes once it is `limit` long.
    private struct Pending {
        var events: [CallEvent] = []
        var head = 0
        var isDraining = false
        var isCancelled = false

        var count: Int { events.count - head }

        mutating func next(compactingAt limit: Int) -> CallEvent? {
            guard !isCancelled, head < events.count else { return nil }
            defer {
                head += 1
                if head == events.count || head >= limit {
                    events.removeFirst(head)
                    head = 0
                }
            }
            return events[head]
        }
    }

    private let delivery: Delivery
    private let limit: Int
    private let pending = Protected(Pending())
    private let dropped = Atomic<Int>(0)
    private weak let hub: CallEventHub?

    init(handler: @escaping @Sendable (CallEvent) -> Void, limit: Int, hub: CallEventHub) {
        delivery = .handler(handler, DispatchQueue(label: "NetworkLayer.events"))
        self.limit = max(limit, 1)
        self.hub = hub
    }

    init(stream: AsyncStream<CallEvent>.Continuation, limit: Int, hub: CallEventHub) {
        delivery = .stream(stream)
        self.limit = max(limit, 1)
        self.hub = hub
    }

    /// The events this subscription dropped because its buffer was full.
    public var droppedEvents: Int { dropped.load(ordering: .relaxed) }

    /// Ends the subscription: no event is delivered after the one its handler may be running
    /// now; an ``NetworkManager/events(bufferLimit:)`` sequence finishes. Calling it again does nothing.
    public func cancel() {
        let wasCancelled = pending.withLock { state in
            defer { state.isCancelled = true; state.events = []; state.head = 0 }
            return state.isCancelled
        }
        guard !wasCancelled else { return }
        hub?.remove(self)
        if case .stream(let continuation) = delivery { continuation.finish() }
    }

    /// Takes `events` for delivery (a burst wakes the handler's queue once), or counts those the
    /// buffer has no room for dropped. Never waits for the handler.
    func offer(_ events: some Collection<CallEvent>) {
        switch delivery {
        case .stream(let continuation):
            for event in events {
                if case .dropped = continuation.yield(event) { countDrops(1) }
            }
        case .handler(_, let queue):
            let (mustStart, drops) = pending.withLock { state -> (Bool, Int) in
                guard !state.isCancelled else { return (false, 0) }
                let room = max(limit - state.count, 0)
                state.events.append(contentsOf: events.prefix(room))
                defer { if room > 0 { state.isDraining = true } }
                return (room > 0 && !state.isDraining, max(events.count - room, 0))
            }
            if drops > 0 { countDrops(drops) }
            if mustStart { queue.async { self.drain() } }
        }
    }

    private func countDrops(_ count: Int) {
        dropped.add(count, ordering: .relaxed)
        hub?.countDrops(count)
    }

    /// On the subscription's queue: delivers what waits, one at a time (the one the handler holds
    /// is out of the buffer: at most `limit + 1` are kept), until nothing does.
    private func drain() {
        guard case .handler(let handler, _) = delivery else { return }
        while let event = pending.withLock({ state in
            let event = state.next(compactingAt: limit)
            if event == nil { state.isDraining = false }
            return event
        }) {
            handler(event)
        }
    }
}
