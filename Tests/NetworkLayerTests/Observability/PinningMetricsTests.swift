#if IntegrationTests
import CoreMetrics
import Foundation
import MetricsTestKit
import NetworkLayerObservability
import Testing
import TestScheduling
@testable import NetworkLayer

@Suite("Observability: PinningMetrics", .sharing)
struct PinningMetricsTests {
    @Test("Each pinning report counts once, by host, port, kind and enforcement, and nothing of the request")
    func reportsAreCounted() async throws {
        try await withGeneratedTLSServer("rotated-chain.pem", key: "rotated.key") { rotated in
            let metrics = TestMetrics()
            let net = makeTLSManager()
            let task = PinningMetrics.record(from: net, factory: metrics)
            defer { task.cancel() }
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "localhost.pem"), try pin(of: "unrelated.pem")],
                                                  enforcement: .reportOnly)], isEnabled: true)
            for _ in 0..<2 {
                _ = try await net.perform(TestRequest<Echo>(rotated.provider(host: "localhost"), "/echo/secret-path"))
                net.closeIdleConnections()
            }
            let deadline = ContinuousClock.now + .seconds(5)
            while metrics.counterTotal(label: PinningMetrics.label) < 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(metrics.counterTotal(label: PinningMetrics.label) == 2)
            let counter = try #require(metrics.counters.first { $0.label == PinningMetrics.label })
            let dimensions = Dictionary(counter.dimensions, uniquingKeysWith: { _, last in last })
            #expect(dimensions == ["server.address": "localhost", "server.port": "\(rotated.port)",
                                   "networklayer.pinning.kind": "mismatch", "networklayer.pinning.enforced": "false"])
        }
    }
}
#endif
