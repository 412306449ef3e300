#if IntegrationTests
import CoreMetrics
import Foundation
import MetricsTestKit
import NetworkLayerObservability
import Testing
import TestScheduling
@testable import NetworkLayer

@Suite("Observability: queue metrics", .sharing)
struct QueueMetricsTests {
    @Test("Under a limit of 1, the request that waited records http.client.queue.duration, and each the origin's limit as a gauge")
    func queueDurationAndLimit() async throws {
        try await withConcurrencyServer { server in
            let metrics = TestMetrics()
            let net = makeManager()
            net.middlewares = [MetricsMiddleware(factory: metrics)]
            net.maximumRequestsPerOrigin = 1
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask { _ = try await net.perform(TestRequest<ConcurrencyServer.Answer>(server.provider(), "/hold?ms=200&token=hunter2")) }
                }
                try await group.waitForAll()
            }
            let queue = try #require(metrics.recorders(label: "http.client.queue.duration").first)
            #expect(queue.values.count == 1)
            #expect((queue.values.first ?? 0) >= 0.1, "waited \(queue.values)")
            let limit = try #require(metrics.recorders(label: "http.client.origin.limit").first)
            #expect(limit.values == [1, 1])
            let labels = Dictionary(limit.dimensions, uniquingKeysWith: { _, last in last })
            #expect(labels == ["http.request.method": "GET", "server.address": "127.0.0.1", "server.port": "\(server.port)", "url.scheme": "http"])
            #expect(!(queue.dimensions + limit.dimensions).map(\.1).contains { $0.contains("hunter2") || $0.contains("/") })
        }
    }

    @Test("Without a limit neither is recorded")
    func noneWithoutLimit() async throws {
        try await withConcurrencyServer { server in
            let metrics = TestMetrics()
            let net = makeManager()
            net.middlewares = [MetricsMiddleware(factory: metrics)]
            _ = try await net.perform(TestRequest<ConcurrencyServer.Answer>(server.provider(), "/hold?ms=1"))
            #expect(metrics.recorders(label: "http.client.queue.duration").flatMap(\.values).isEmpty)
            #expect(metrics.recorders(label: "http.client.origin.limit").flatMap(\.values).isEmpty)
        }
    }
}
#endif
