#if IntegrationTests
import CoreMetrics
import Foundation
import MetricsTestKit
import NetworkLayerObservability
import Testing
import TestScheduling
@testable import NetworkLayer

@Suite("Observability: CircuitMetrics", .sharing)
struct CircuitMetricsTests {
    @Test("Each change of a circuit's state counts once, by origin and new state")
    func transitionsAreCounted() async throws {
        try await withOutageServer { server in
            let metrics = TestMetrics()
            let net = makeManager()
            let breaker = CircuitBreaker(failureThreshold: 1, openFor: .milliseconds(100), onStateChange: CircuitMetrics.counting(factory: metrics))
            let request = { TestRequest<Data>(server.provider(breaker: breaker), "/work", timeout: 10) }
            try await server.set("fail")
            _ = await networkError { try await net.perform(request()) }
            try await server.set("ok")
            try await Task.sleep(for: .milliseconds(300))
            _ = try await net.perform(request())
            #expect(metrics.counterTotal(label: CircuitMetrics.label) == 3)
            let states = metrics.counters.filter { $0.label == CircuitMetrics.label }.map { counter in
                Dictionary(counter.dimensions, uniquingKeysWith: { _, last in last })
            }
            #expect(Set(states.compactMap { $0["networklayer.circuit.state"] }) == ["open", "halfOpen", "closed"])
            #expect(states.allSatisfy { $0["networklayer.circuit.origin"] == "http://127.0.0.1:\(server.port)" })
        }
    }
}
#endif
