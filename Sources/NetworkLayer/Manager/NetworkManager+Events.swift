import Foundation

extension NetworkManager {
    /// Calls `handler` with every ``CallEvent`` of this manager's requests, on a serial queue of
    /// its own, in order, until the subscription is cancelled.
    ///
    /// Requests never wait for the handler: events wait in a buffer of at most `bufferLimit`, and
    /// when it is full (a handler that blocks) further events are dropped and counted
    /// (``EventSubscription/droppedEvents``, ``droppedEvents``). A request resolved while the
    /// manager has no subscription sets no libcurl callback and builds no event.
    ///
    /// ```swift
    /// let subscription = Net.addEventHandler { event in
    ///     if case .connectionAcquired(let reused) = event.kind { print(event.requestID, reused) }
    /// }
    /// subscription.cancel()
    /// ```
    public func addEventHandler(bufferLimit: Int = 1024, _ handler: @escaping @Sendable (CallEvent) -> Void) -> EventSubscription {
        let subscription = EventSubscription(handler: handler, limit: bufferLimit, hub: eventHub)
        eventHub.add(subscription)
        return subscription
    }

    /// Every ``CallEvent`` of this manager's requests from now on, as an asynchronous sequence
    /// that keeps at most `bufferLimit` events its reader has not taken (newer ones are dropped
    /// and counted in ``droppedEvents``). Its subscription ends when the task reading it is
    /// cancelled or the sequence is released.
    ///
    /// ```swift
    /// for await event in Net.events() where event.requestID == id { … }
    /// ```
    public func events(bufferLimit: Int = 1024) -> AsyncStream<CallEvent> {
        let (stream, continuation) = AsyncStream<CallEvent>.makeStream(bufferingPolicy: .bufferingOldest(max(bufferLimit, 1)))
        let subscription = EventSubscription(stream: continuation, limit: bufferLimit, hub: eventHub)
        continuation.onTermination = { _ in subscription.cancel() }
        eventHub.add(subscription)
        return stream
    }

    /// How many events this manager's subscriptions dropped, since it was made, because their
    /// buffers were full.
    public var droppedEvents: Int { eventHub.droppedEvents }
}
