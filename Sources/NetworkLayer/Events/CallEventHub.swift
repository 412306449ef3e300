import Foundation
import Synchronization

/// A manager's event subscriptions. The manager's settings hold it only while it has one, so that
/// a request resolved without a subscription builds no event (``CallEvents``).
final class CallEventHub: Sendable {
    private let subscriptions = Protected<[EventSubscription]>([])
    private let settings: Protected<Settings>
    private let dropped = Atomic<Int>(0)

    init(settings: Protected<Settings>) {
        self.settings = settings
    }

    var droppedEvents: Int { dropped.load(ordering: .relaxed) }

    func countDrops(_ count: Int) { dropped.add(count, ordering: .relaxed) }

    func add(_ subscription: EventSubscription) {
        // Both locks, in this order everywhere: a request resolved after this returns sees the hub.
        subscriptions.withLock { list in
            list.append(subscription)
            if list.count == 1 { settings.withLock { $0.eventHub = self } }
        }
    }

    func remove(_ subscription: EventSubscription) {
        subscriptions.withLock { list in
            guard let index = list.firstIndex(where: { $0 === subscription }) else { return }
            list.remove(at: index)
            if list.isEmpty { settings.withLock { $0.eventHub = nil } }
        }
    }

    func publish(_ events: some Collection<CallEvent>) {
        for subscription in subscriptions.withLock({ $0 }) { subscription.offer(events) }
    }
}

/// One call's events: its id, its manager's subscriptions, and the observers of its middlewares
/// that asked for them (``RequestMiddleware/observesCallEvents``). Exists only when someone
/// listens: every place an event happens checks for it first.
///
/// Any step may emit: `resolved.events?.emit(.queued)`.
final class CallEvents: Sendable {
    let requestID: Int
    private let hub: CallEventHub?
    private let observers = Protected<[any RequestObserver]>([])

    init(requestID: Int, hub: CallEventHub?) {
        self.requestID = requestID
        self.hub = hub
    }

    /// Emits `kind` at `time`. Observers are called here, on the emitting thread (for the
    /// connection's phases, libcurl's): a ``RequestObserver`` keeps its methods quick.
    func emit(_ kind: CallEvent.Kind, at time: ContinuousClock.Instant = .now) {
        emit(CollectionOfOne((kind, time)))
    }

    /// Emits a burst, in order, as one hand-off to each subscription.
    func emit(_ burst: some Collection<(CallEvent.Kind, ContinuousClock.Instant)>) {
        let events = burst.lazy.map { CallEvent(requestID: self.requestID, kind: $0.0, time: $0.1) }
        hub?.publish(events)
        let observers = observers.withLock { $0 }
        guard !observers.isEmpty else { return }
        for event in events {
            for observer in observers { observer.receive(event) }
        }
    }

    /// The observers of the middlewares around the wire, for the events from now on.
    func observe(_ list: [any RequestObserver]) {
        observers.withLock { $0 = list }
    }
}
