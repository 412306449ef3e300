#if IntegrationTests
import Foundation
import MetricsTestKit
import NetworkLayerObservability
import Testing
import TestScheduling
@testable import NetworkLayer

/// `MetricsMiddleware` around a stream that reconnects: one call, its reconnections counted as retries.
@Suite("Event stream reconnection and metrics", .sharing)
struct EventStreamReconnectionMetricsTests {
    @Test("Three reconnections count three retries; the stream's duration is recorded once, at its end; active requests go up and back down once")
    func reconnectionsReachTheMetrics() async throws {
        try await withSSEServer { server in
            let metrics = TestMetrics()
            let net = makeManager()
            net.middlewares = [MetricsMiddleware(factory: metrics)]
            let stream = try await net.perform(EventStreamReconnectionTests.request(server, "count=6&cut=2&key=metrics"))
            let (events, error) = await collect(stream)
            #expect(error == nil)
            #expect(events.count == 6)
            #expect(metrics.counterTotal(label: "http.client.request.retries") == 3)
            #expect(metrics.recorders(label: "http.client.request.duration").flatMap(\.values).count == 1)
            #expect(try #require(metrics.meters(label: "http.client.active_requests").first).values == [1, 0])
        }
    }
}
#endif
