#if IntegrationTests
import Foundation
import InMemoryTracing
import MetricsTestKit
import NetworkLayerObservability
import Testing
import TestScheduling
import Tracing
@testable import NetworkLayer

/// `MetricsMiddleware` and `TracingMiddleware` around a stream that reconnects: one call, its
/// reconnections counted as retries, one span that ends with the stream.
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

    @Test("One span for the stream, ended after its last body, with a retry event per reconnection; every reconnection carries its context")
    func reconnectionsReachTheSpan() async throws {
        try await withSSEServer { server in
            let tracer = InMemoryTracer()
            let wire = CallRecorder<[String: String]>()
            let net = makeManager()
            net.middlewares = [TracingMiddleware(tracer: tracer)]
            net.networkMiddlewares = [WireHeaders(seen: wire)]
            let stream = try await net.perform(EventStreamReconnectionTests.request(server, "count=6&cut=2&key=trace"))
            var iterator = stream.makeAsyncIterator()
            _ = try await iterator.next()
            #expect(tracer.finishedSpans.isEmpty)
            while try await iterator.next() != nil {}
            #expect(tracer.finishedSpans.count == 1)
            let span = try #require(tracer.finishedSpans.first)
            #expect(span.events.map(\.name).filter { $0 == "retry" } == ["retry", "retry", "retry"])
            let spanIDs = wire.values.map { $0.first { $0.key.lowercased() == InMemoryTracer.spanIDKey.lowercased() }?.value }
            #expect(spanIDs == Array(repeating: span.spanID, count: 4))
        }
    }
}
#endif
