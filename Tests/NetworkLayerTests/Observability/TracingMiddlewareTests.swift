#if IntegrationTests
import CoreMetrics
import Foundation
import InMemoryTracing
import MetricsTestKit
import NetworkLayerObservability
import Testing
import TestScheduling
import Tracing
@testable import NetworkLayer

/// Records the headers of every request on the wire.
struct WireHeaders: RequestMiddleware {
    let seen: CallRecorder<[String: String]>
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        seen.record(request.headers)
        return try await next(request)
    }
}

extension FinishedInMemorySpan {
    func string(_ key: String) -> String? {
        if case .string(let value)? = attributes[key]?.toSpanAttribute() { return value }
        return nil
    }

    func int(_ key: String) -> Int64? {
        if case .int64(let value)? = attributes[key]?.toSpanAttribute() { return value }
        return nil
    }

    func bool(_ key: String) -> Bool? {
        if case .bool(let value)? = attributes[key]?.toSpanAttribute() { return value }
        return nil
    }
}

/// Quotes a server's `X-Echo` header into an error, as an app's own check of a response might.
private struct QuotingMiddleware: RequestMiddleware {
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        let response = try await next(request)
        if let echoed = response.value(forHeader: "X-Echo") { throw .transport(.init(reason: "the server said \(echoed)")) }
        return response
    }
}

/// A manager of the test's own tracing its calls with `tracer`.
private func tracedManager(_ tracer: InMemoryTracer, mocks: URL? = nil) -> NetworkManager {
    let net = makeManager(mocks: mocks)
    net.middlewares = [TracingMiddleware(tracer: tracer)]
    return net
}

@Suite("Observability: TracingMiddleware", .sharing)
struct TracingMiddlewareTests {
    @Test("A plain call: one client span named for the method, OpenTelemetry's attributes, a child of the caller's span; the server receives its context")
    func plainCall() async throws {
        let server = try await TestServer.shared()
        let tracer = InMemoryTracer()
        let net = tracedManager(tracer)
        let parent = tracer.startSpan("checkout")
        let echo = try await ServiceContext.$current.withValue(parent.context) {
            try await net.perform(TestRequest<Echo>(server.provider(), "/echo/orders?api_key=hunter2&page=2"))
        }
        parent.end()
        let span = try #require(tracer.finishedSpans.first { $0.operationName == "GET" })
        #expect(span.kind == .client)
        #expect(span.parentSpanID == parent.spanContext.spanID)
        #expect(span.traceID == parent.spanContext.traceID)
        #expect(span.string("http.request.method") == "GET")
        #expect(span.string("server.address") == "127.0.0.1")
        #expect(span.int("server.port") == Int64(server.port))
        #expect(span.string("url.full") == "http://127.0.0.1:\(server.port)/echo/orders?api_key=<redacted>&page=2")
        #expect(span.int("http.response.status_code") == 200)
        #expect(span.string("network.protocol.version") == "1.1")
        #expect(span.attributes["error.type"] == nil)
        #expect(span.status == nil)
        // What the server received names this span: the tracer's own two headers.
        #expect(echo.header(InMemoryTracer.traceIDKey) == span.traceID)
        #expect(echo.header(InMemoryTracer.spanIDKey) == span.spanID)
        #expect(!"\(span.attributes)".contains("hunter2"))
    }

    @Test("A mocked call is marked, and nothing is injected: nothing goes on the wire")
    func mockedCall() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Attempt", body: #"{"attempt": 3}"#)
        let tracer = InMemoryTracer()
        let net = tracedManager(tracer, mocks: mocks.url)
        _ = try await net.perform(MockedRequest<Attempt>(TestProvider(host: "api.example", httpScheme: .https), "/x", mock: "Attempt"))
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.bool("networklayer.mocked") == true)
        #expect(span.int("http.response.status_code") == 200)
        #expect(tracer.performedContextInjections.isEmpty)
    }

    @Test("A cache hit is marked hit, and sends nothing; the miss before it was marked miss")
    func cacheHit() async throws {
        try await withTestServer { server in
            let tracer = InMemoryTracer()
            let net = makeCachingManager()
            net.middlewares = [TracingMiddleware(tracer: tracer)]
            let path = "/response-headers?h=Cache-Control:max-age%3D60"
            _ = try await net.perform(TestRequest<JSONValue>(server.provider(), path))
            _ = try await net.perform(TestRequest<JSONValue>(server.provider(), path))
            #expect(tracer.finishedSpans.map { $0.string("networklayer.cache.status") } == ["miss", "hit"])
            #expect(tracer.performedContextInjections.count == 1)
            let received = try await server.receivedRequestCount()
            #expect(received == 1)
        }
    }

    @Test("A retry: one span, a retry event, resend_count 1, and each attempt carried the span's context")
    func retry() async throws {
        try await withTestServer { server in
            let tracer = InMemoryTracer()
            let net = tracedManager(tracer)
            let wire = CallRecorder<[String: String]>()
            net.networkMiddlewares = [WireHeaders(seen: wire)]
            let provider = MiddlewareProvider(port: server.port, retryPolicy: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(5)))
            _ = try await net.perform(TestRequest<Attempt>(provider, "/flaky/traced?fail=1"))
            #expect(tracer.finishedSpans.count == 1)
            let span = try #require(tracer.finishedSpans.first)
            #expect(span.int("http.request.resend_count") == 1)
            #expect(span.events.map(\.name).filter { $0 == "retry" || $0 == "redirect" } == ["retry"])
            #expect(wire.values.count == 2)
            #expect(wire.values.allSatisfy { $0[InMemoryTracer.spanIDKey] == span.spanID })
        }
    }

    @Test("A redirect: events for each hop, resend_count, and the last hop's server receives the span's context")
    func redirect() async throws {
        let server = try await TestServer.shared()
        let tracer = InMemoryTracer()
        let echo = try await tracedManager(tracer).perform(TestRequest<Echo>(server.provider(), "/redirect/1"))
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.events.map(\.name).filter { $0 == "retry" || $0 == "redirect" } == ["redirect", "redirect"])
        #expect(span.int("http.request.resend_count") == 2)
        #expect(echo.header(InMemoryTracer.spanIDKey) == span.spanID)
        #expect(tracer.performedContextInjections.count == 3)
    }

    @Test("The span has the call's connection events in order, at non-decreasing times; the next call's says its connection was reused")
    func connectionEvents() async throws {
        try await withTestServer { server in
            let tracer = InMemoryTracer()
            let net = tracedManager(tracer)
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
            #expect(net.settings.withLock { $0.eventHub } == nil)  // the span's own events: no manager subscription
            let spans = tracer.finishedSpans
            try #require(spans.count == 2)
            #expect(spans[0].events.map(\.name) == ["dnsStart", "dnsEnd", "connectStart", "connectEnd", "connectionAcquired",
                                                     "requestHeadersSent", "responseHeadersReceived", "responseBodyEnd"])
            let times = spans[0].events.map(\.nanosecondsSinceEpoch)
            #expect(times == times.sorted())
            #expect(spans[0].startInstant.nanosecondsSinceEpoch <= times[0] + 1_000_000)  // within the two clocks' readings
            let acquired = spans.map { $0.events.first { $0.name == "connectionAcquired" }?.attributes["network.connection.reused"] }
            #expect(acquired.map { $0?.toSpanAttribute() } == [.bool(false), .bool(true)])
            let received = spans[0].events.first { $0.name == "responseHeadersReceived" }
            #expect(received?.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        }
    }

    @Test("A stream's span ends with the stream's body, not its head")
    func stream() async throws {
        let server = try await TestServer.shared()
        let tracer = InMemoryTracer()
        let stream = try await tracedManager(tracer).perform(StreamRequest<ByteStream>(server.provider(), "/slow-bytes/3000?chunk=1000&interval=0.1"))
        #expect(tracer.performedContextInjections.count == 1)
        #expect(tracer.finishedSpans.isEmpty)
        #expect(tracer.activeSpans.count == 1)
        var received = 0
        for try await chunk in stream { received += chunk.count }
        #expect(received == 3000)
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.int("http.response.status_code") == 200)
        #expect(span.status == nil)
    }

    @Test("A WebSocket's span is its handshake's: it ends with the 101, while the socket stays open, and the socket's life is not in it")
    func webSocketHandshake() async throws {
        try await withWebSocketServer { server in
            let tracer = InMemoryTracer()
            let socket = try await tracedManager(tracer).perform(SocketRequest(server.provider(), "/echo"))
            let span = try #require(tracer.finishedSpans.first, "the span was still open after the handshake")
            #expect(tracer.finishedSpans.count == 1 && tracer.activeSpans.isEmpty)
            #expect(span.int("http.response.status_code") == 101)
            #expect(span.status == nil)
            #expect(tracer.performedContextInjections.count == 1)
            try await socket.send(.text("traced"))
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .text("traced"))
            try await socket.close()
            #expect(tracer.finishedSpans.count == 1, "the socket's messages or its close made spans of their own")
        }
    }

    @Test("A cancelled call's span ends with error.type cancelled and an error status")
    func cancelled() async throws {
        let server = try await TestServer.shared()
        let tracer = InMemoryTracer()
        let net = tracedManager(tracer)
        let task = Task { try await net.perform(TestRequest<JSONValue>(server.provider(), "/delay/3")) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        _ = await task.result
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.string("error.type") == "cancelled")
        #expect(span.status?.code == .error)
        #expect(span.errors.count == 1)
    }

    @Test("Failures: a 500 has error.type 500 and an error status; a refused connection has the NetworkError's case")
    func failures() async throws {
        let server = try await TestServer.shared()
        let tracer = InMemoryTracer()
        let net = tracedManager(tracer)
        let failed = await FaultOutcome { () throws(NetworkError) in
            try await net.perform(TestRequest<JSONValue>(server.provider(), "/reflect-headers?status=500"))
        }
        let serverError = try #require(tracer.popFinishedSpans().first)
        // The server received the failing call's context: it reflects what it got.
        #expect(failed.error?.context?.response?.value(forHeader: "X-Reflected-\(InMemoryTracer.spanIDKey)") == serverError.spanID)
        #expect(serverError.int("http.response.status_code") == 500)
        #expect(serverError.string("error.type") == "500")
        #expect(serverError.status?.code == .error)

        let port = try closedPort()
        _ = await FaultOutcome { () throws(NetworkError) in
            try await net.perform(TestRequest<JSONValue>(TestProvider(host: "127.0.0.1", httpScheme: .http, port: port), "/x"))
        }
        let refused = try #require(tracer.popFinishedSpans().first)
        #expect(refused.string("error.type") == "reachability" || refused.string("error.type") == "transport", "\(refused.attributes)")
        #expect(refused.attributes["http.response.status_code"] == nil)
        #expect(refused.status?.code == .error)
    }

    @Test("A span holds no secret: a Basic password in the URL, or quoted from a server into an error, is redacted in url.full, the status and the error")
    func spanHoldsNoSecret() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let server = try await TestServer.shared()
        let tracer = InMemoryTracer()
        let net = tracedManager(tracer)
        net.networkMiddlewares = [QuotingMiddleware()]
        let password = "Pa55word-Very-Secret"
        let basic = Authentication.basic(username: "alice-user", password: password)
        _ = try await net.perform(TestRequest<JSONValue>(AuthProvider(port: httpbin.port, authentication: basic), "/basic-auth/alice-user/\(password)"))
        let error = await networkError {
            try await net.perform(TestRequest<JSONValue>(AuthProvider(port: server.port, authentication: basic), "/echo-credential"))
        }
        #expect(error?.context?.reason == "the server said <redacted>", "\(String(describing: error))")
        let spans = tracer.finishedSpans
        #expect(spans.count == 2)
        #expect(spans.first?.string("url.full") == "http://127.0.0.1:\(httpbin.port)/basic-auth/alice-user/<redacted>")
        for span in spans {
            let recorded = span.errors.map { ($0.error as? NetworkError).map { "\($0.errorDescription ?? "") \(String(reflecting: $0))" } ?? "\($0.error)" }
            let texts = "\(span.attributes) \(span.events) \(String(describing: span.status)) \(recorded)"
            #expect(!texts.contains(password) && !spellsSecretInBase64(password, in: texts), "\(texts)")
        }
        #expect(spans.last?.errors.count == 1)
    }

    @Test("With the no-op tracer nothing is recorded and the call goes through unchanged")
    func noOpTracer() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.middlewares = [TracingMiddleware(tracer: NoOpTracer())]
        let echo = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
        #expect(echo.header("traceparent") == nil)
        #expect(echo.header(InMemoryTracer.spanIDKey) == nil)
        // Left out of the call (isActive), so it costs nothing; a recording tracer takes part.
        #expect(!TracingMiddleware(tracer: NoOpTracer()).isActive)
        #expect(TracingMiddleware(tracer: InMemoryTracer()).isActive)
        #expect(!MetricsMiddleware(factory: NOOPMetricsHandler.instance).isActive)
        #expect(MetricsMiddleware(factory: TestMetrics()).isActive)
    }
}
#endif
