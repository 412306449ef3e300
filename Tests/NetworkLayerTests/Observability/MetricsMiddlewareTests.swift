#if IntegrationTests
import CoreMetrics
import Foundation
import MetricsTestKit
import NetworkLayerObservability
import Testing
import TestScheduling
@testable import NetworkLayer

/// A manager of the test's own recording its calls' metrics in `metrics`.
private func measuredManager(_ metrics: TestMetrics, mocks: URL? = nil) -> NetworkManager {
    let net = makeManager(mocks: mocks)
    net.middlewares = [MetricsMiddleware(factory: metrics)]
    return net
}

extension TestMetrics {
    /// The dimensions of every recorder named `label`, as dictionaries.
    func dimensions(of label: String) -> [[String: String]] {
        recorders(label: label).map { Dictionary($0.dimensions, uniquingKeysWith: { _, last in last }) }
    }
}

@Suite("Observability: MetricsMiddleware", .sharing)
struct MetricsMiddlewareTests {
    @Test("A call records its duration with method, server, scheme and status; active requests go up and back down; bytes both ways")
    func plainCall() async throws {
        let server = try await TestServer.shared()
        let metrics = TestMetrics()
        let net = measuredManager(metrics)
        _ = try await net.perform(BodyRequest<Echo>(server.provider(), "/echo/users/42?token=hunter2", body: .data(Data("hello".utf8))))
        let duration = try #require(metrics.recorders(label: "http.client.request.duration").first)
        let dimensions = Dictionary(duration.dimensions, uniquingKeysWith: { _, last in last })
        #expect(dimensions == ["http.request.method": "POST", "server.address": "127.0.0.1", "server.port": "\(server.port)",
                               "url.scheme": "http", "http.response.status_code": "200"])
        #expect(duration.values.count == 1)
        #expect((duration.values.first ?? 0) > 0 && (duration.values.first ?? 1) < 10)
        let active = try #require(metrics.meters(label: "http.client.active_requests").first)
        #expect(active.values == [1, 0])
        #expect(try metrics.expectRecorder("http.client.request.body.size", duration.dimensions.filter { $0.0 != "http.response.status_code" }).lastValue == 5)
        #expect((metrics.recorders(label: "http.client.response.body.size").first?.lastValue ?? 0) > 0)
        // Bounded labels: no path, no query, no identifier.
        let labels = metrics.recorders.flatMap(\.dimensions).map(\.1) + metrics.meters.flatMap(\.dimensions).map(\.1)
        #expect(!labels.contains { $0.contains("users") || $0.contains("hunter2") || $0.contains("/") })
    }

    @Test("A retry counts once and the call's duration is recorded once; a failure records its error.type")
    func retryAndFailure() async throws {
        try await withTestServer { server in
            let metrics = TestMetrics()
            let net = measuredManager(metrics)
            let provider = MiddlewareProvider(port: server.port, retryPolicy: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(5)))
            _ = try await net.perform(TestRequest<Attempt>(provider, "/flaky/metrics?fail=1"))
            #expect(metrics.counterTotal(label: "http.client.request.retries") == 1)
            #expect(metrics.recorders(label: "http.client.request.duration").flatMap(\.values).count == 1)

            _ = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<JSONValue>(server.provider(), "/status/503")) }
            #expect(metrics.dimensions(of: "http.client.request.duration").contains { $0["error.type"] == "503" && $0["http.response.status_code"] == "503" })

            let port = try closedPort()
            _ = await FaultOutcome { () throws(NetworkError) in
                try await net.perform(TestRequest<JSONValue>(TestProvider(host: "127.0.0.1", httpScheme: .http, port: port), "/x"))
            }
            #expect(metrics.dimensions(of: "http.client.request.duration").contains {
                $0["error.type"] == "reachability" || $0["error.type"] == "transport"
            })
            #expect(metrics.meters(label: "http.client.active_requests").allSatisfy { $0.lastValue == 0 })
        }
    }

    @Test("A stream's duration covers its body; a mocked call and a cancelled one are measured too")
    func streamMockAndCancel() async throws {
        let server = try await TestServer.shared()
        let metrics = TestMetrics()
        let net = measuredManager(metrics)
        let stream = try await net.perform(StreamRequest<ByteStream>(server.provider(), "/slow-bytes/3000?chunk=1000&interval=0.1"))
        #expect(metrics.recorders(label: "http.client.request.duration").isEmpty)
        for try await _ in stream {}
        let duration = try #require(metrics.recorders(label: "http.client.request.duration").first?.values.first)
        #expect(duration >= 0.15)
        #expect(metrics.recorders(label: "http.client.response.body.size").first?.lastValue == 3000)

        // The stream's call is measured (its duration recorded) an instant before its active meter
        // goes back to 0: seen at 1 then, the wait below would cancel the next call before it began.
        let deadline = ContinuousClock.now + .seconds(10)
        while !metrics.meters(label: "http.client.active_requests").allSatisfy({ $0.lastValue == 0 }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let task = Task { try await net.perform(TestRequest<JSONValue>(server.provider(), "/delay/3")) }
        // Cancelled once the middleware measures the call: a task cancelled before its call began
        // (a slow machine, a sanitizer) ends before any middleware sees it, and is measured by none.
        while !metrics.meters(label: "http.client.active_requests").contains(where: { $0.lastValue == 1 }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        task.cancel()
        _ = await task.result
        let dimensions = metrics.dimensions(of: "http.client.request.duration")
        #expect(dimensions.contains { $0["error.type"] == "cancelled" }, "\(dimensions)")

        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Attempt", body: #"{"attempt": 3}"#)
        let mockMetrics = TestMetrics()
        _ = try await measuredManager(mockMetrics, mocks: mocks.url)
            .perform(MockedRequest<Attempt>(TestProvider(host: "api.example", httpScheme: .https), "/x", mock: "Attempt"))
        #expect(mockMetrics.dimensions(of: "http.client.request.duration") == [[
            "http.request.method": "GET", "server.address": "api.example", "server.port": "443", "url.scheme": "https",
            "http.response.status_code": "200"]])
    }

    @Test("A redirect counts as a resend; a cache hit is measured like any call, without a request on the wire")
    func redirectAndCacheHit() async throws {
        try await withTestServer { server in
            let metrics = TestMetrics()
            let net = makeCachingManager()
            net.middlewares = [MetricsMiddleware(factory: metrics)]
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/redirect/1"))
            #expect(metrics.counterTotal(label: "http.client.request.retries") == 2)
            let path = "/response-headers?h=Cache-Control:max-age%3D60"
            _ = try await net.perform(TestRequest<JSONValue>(server.provider(), path))
            _ = try await net.perform(TestRequest<JSONValue>(server.provider(), path))
            let durations = metrics.recorders(label: "http.client.request.duration").flatMap(\.values)
            #expect(durations.count == 3)
            let received = try await server.receivedRequestCount()
            #expect(received == 4)   // the redirect's three hops, one miss
        }
    }

    @Test("A hostile status line (999, control characters in the reason) and an unknown method never reach a label")
    func hostileLabels() async throws {
        try await withFaultServer { server in
            let metrics = TestMetrics()
            let net = measuredManager(metrics)
            _ = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<JSONValue>(server.provider(), "/hostile-text?status=999")) }
            _ = await FaultOutcome { () throws(NetworkError) in
                try await net.perform(TestRequest<JSONValue>(server.provider(), "/ok", method: HTTPMethod(rawValue: "X-EVIL-\(UUID())")))
            }
            let dimensions = metrics.dimensions(of: "http.client.request.duration")
            #expect(dimensions.count == 2)
            #expect(dimensions.contains { $0["http.response.status_code"] == "_OTHER" })
            #expect(dimensions.contains { $0["http.request.method"] == "_OTHER" })
            let labels = dimensions.flatMap(\.values)
            #expect(!labels.contains { $0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } })
            #expect(!labels.contains { $0.contains("X-EVIL") })
        }
    }
}
#endif
