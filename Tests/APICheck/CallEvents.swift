import Foundation
import NetworkLayer

// Issue 53: connection events, as a handler and as an asynchronous sequence, and seen by a middleware.
func watchCallEvents(on net: NetworkManager) async {
    let subscription: EventSubscription = net.addEventHandler { (event: CallEvent) in
        let id: Int = event.requestID, time: ContinuousClock.Instant = event.time, name: String = event.kind.name
        switch event.kind {
        case .callStart, .queued, .dnsStart, .dnsEnd, .connectStart, .connectEnd, .tlsStart, .tlsEnd, .requestHeadersSent, .callEnd:
            print(id, time, name)
        case .connectionAcquired(let reused): print(reused)
        case .responseHeadersReceived(let status): print(status)
        case .responseBodyEnd(let bytes): print(bytes as Int64)
        case .callFailed(let error): print(error as NetworkError)
        }
    }
    let bounded = net.addEventHandler(bufferLimit: 64) { _ in }
    let dropped: Int = subscription.droppedEvents + bounded.droppedEvents + net.droppedEvents
    print(dropped)
    subscription.cancel()
    bounded.cancel()
    let events: AsyncStream<CallEvent> = net.events(bufferLimit: 256)
    for await event in net.events() where event.requestID == 1 { print(event); break }
    _ = events
}

struct EventWatcher: RequestMiddleware {
    var observesCallEvents: Bool { true }

    struct Observer: RequestObserver {
        func receive(_ event: CallEvent) { print(event.kind.name) }
    }

    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        try await next(request, observer: Observer())
    }
}
