// Streams that last (issue 36): reconnection and keepalive, exactly as the issue writes them.

import Foundation
import NetworkLayer

struct FeedProvider: ServiceProvider {
    var host: String { "feed.example.com" }
    var httpScheme: HTTPScheme { .https }
    var keepAlive: KeepAlive? { KeepAlive(idle: .seconds(20), interval: .seconds(10)) }
}

final class FeedRequest: BaseRequest<EventStream> {
    init() {
        super.init(serviceProvider: FeedProvider(), endpoint: "/events")
    }
}

func checkStreamsAPI() async throws {
    let request = FeedRequest()
    request.reconnectPolicy = .eventSource(maximumAttempts: 10)   // default: nil, no reconnection
    request.reconnectPolicy = .eventSource(maximumAttempts: 3, reconnectsNonIdempotentMethods: true)
    request.reconnectPolicy = ReconnectPolicy(maximumAttempts: 5, delay: .seconds(1), maximumDelay: .seconds(30),
                                              reconnectsNonIdempotentMethods: false)
    let policy: ReconnectPolicy? = request.reconnectPolicy
    let bounds: (Duration, Duration) = (ReconnectPolicy.shortestDelay, ReconnectPolicy.longestDelay)
    if let policy { print(policy.maximumAttempts, policy.delay, policy.maximumDelay, policy.reconnectsNonIdempotentMethods, bounds) }

    Net.keepAlive = KeepAlive(idle: .seconds(60), interval: .seconds(30))   // also on the provider
    Net.keepAlive = .standard
    Net.keepAlive = nil
    let keepAlive: KeepAlive? = FeedProvider().keepAlive
    print(keepAlive?.idle as Any, keepAlive?.interval as Any, KeepAlive.longest)

    for try await event in try await Net.perform(request) {
        var copy = event
        copy.data = "replaced"          // `data` is still settable
        print(event.id ?? "", event.data, copy.data)
    }
}

// Events and lines lent as views (issue 50), exactly as the issue and the streaming article write them.
struct Delta: Decodable { let text: String }

final class NDJSONFeed: BaseRequest<JSONLines<Delta>> {
    init() { super.init(serviceProvider: FeedProvider(), endpoint: "/deltas") }
}

final class RawFeed: BaseRequest<ByteStream> {
    init() { super.init(serviceProvider: FeedProvider(), endpoint: "/raw") }
}

func checkViewsAPI() async throws {
    var text = ""
    var kept: [ServerSentEvent] = []
    let stream = try await Net.perform(FeedRequest())
    try await stream.forEachEvent { event in
        guard !event.dataEquals("[DONE]") else { return }
        if event.isEvent("delta") { text += try event.decode(Delta.self).text }
        let bytes: Int = event.data.byteCount
        let retry: Duration? = event.retry
        let strings: (String, String?, String?) = (event.dataString, event.eventString, event.idString)
        if let id = event.id { print(id.byteCount) }
        if let type = event.event { print(type.byteCount) }
        kept.append(ServerSentEvent(event))
        print(bytes, retry as Any, strings)
    }
    try await Net.perform(NDJSONFeed()).forEachLine { line in
        let delta: Delta = try line.decode(Delta.self, using: JSONDecoder())
        print(line.number, line.bytes.byteCount, line.string, line.equals("{}"), delta.text)
    }
    try await Net.perform(RawFeed()).forEachLine { line in print(line.string) }
    print(text, kept.count)
}
