// The middleware's public API (issue 33), exactly as the issue writes it, and the observability
// product's, compiled when the Observability trait is on (make test turns it on).

import Foundation
import NetworkLayer
#if Observability
import NetworkLayerObservability
import Logging
import Tracing
import CoreMetrics
#endif

struct Timing: RequestMiddleware {
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        let start = ContinuousClock.now
        let response = try await next(request)          // may be skipped (a stub, a circuit breaker), or called again
        print(request.method, request.url, response.statusCode, ContinuousClock.now - start)
        return response
    }
}

struct Switchable: RequestMiddleware {
    let enabled: Bool
    var isActive: Bool { enabled }
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        try await next(request)
    }
}

struct Stub: RequestMiddleware {
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        HTTPResponse(statusCode: 200, body: Data("{}".utf8), url: request.url)
    }
}

struct Watcher: RequestObserver {
    func willSend(_ request: inout OutgoingRequest) { request.setHeader("X-Trace", "1", secret: false) }
    func didRedirect(_ redirect: Redirect) {}
    func willRetry(after outcome: RequestOutcome, attempt: Int, delay: Duration) {}
}

struct Watching: RequestMiddleware {
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        let response = try await next(request, observer: Watcher())
        response.onBodyEnd { (end: ResponseBodyEnd) in print(end.byteCount, end.error as Any, response.isStreaming) }
        print(request.redactedURL)
        return response
    }
}

struct MiddlewareBackend: ServiceProvider {
    var host: String { "api.example.com" }
    var httpScheme: HTTPScheme { .https }
    var middlewares: [any RequestMiddleware] { [Timing()] }
}

final class Upload: BaseRequest<[String: String]> {
    init() {
        super.init(serviceProvider: MiddlewareBackend(), endpoint: "/upload")
        httpMethod = .post
        middlewares = [Watching(), Stub()]
        bodyCompression = .gzip
    }
}

func checkMiddlewareAPI() {
    Net.middlewares = [Timing()]          // once per call, around mocks, the cache, retries and redirects
    Net.middlewares.append(Switchable(enabled: Timing().isActive))
    Net.networkMiddlewares = [Timing()]   // once per request on the wire (each attempt, each hop); never for a cache hit or a mock
    Net.middlewares = [RequestCoalescing(), BodyCompressionMiddleware(minimumSize: 1_024), BodyCompressionMiddleware(.gzip)]
    let compression: BodyCompression = .gzip
    let all: [any RequestMiddleware] = Net.middlewares + Net.networkMiddlewares + MiddlewareBackend().middlewares + Upload().middlewares
    print(compression.coding, all.count)
    #if Observability
    Net.middlewares = [TracingMiddleware(), MetricsMiddleware()]
    Net.middlewares = [TracingMiddleware(tracer: NoOpTracer()), MetricsMiddleware(factory: NOOPMetricsHandler.instance)]
    let logger = Logger(label: "network")
    Net.logEntryHandler = SwiftLogBridge(logger: logger).handle
    let counted = CircuitBreaker(onStateChange: CircuitMetrics.counting())
    print(counted.failureThreshold, CircuitMetrics.label, CircuitBreaker(onStateChange: CircuitMetrics.counting(factory: NOOPMetricsHandler.instance)).halfOpenProbes)
    #endif
}
