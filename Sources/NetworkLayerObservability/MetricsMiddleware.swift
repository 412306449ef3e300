#if Observability
import CoreMetrics
import NetworkLayer

/// The HTTP client metrics of OpenTelemetry's conventions, through swift-metrics.
///
/// ```swift
/// MetricsSystem.bootstrap(prometheus)            // once, at start-up
/// Net.middlewares = [TracingMiddleware(), MetricsMiddleware()]
/// ```
///
/// | Metric | Kind | Dimensions |
/// |---|---|---|
/// | `http.client.request.duration` | recorder (histogram), seconds, until the body's end | method, server, scheme, status, `error.type` |
/// | `http.client.active_requests` | meter | method, server, scheme |
/// | `http.client.request.body.size` | recorder (histogram), bytes sent | method, server, scheme |
/// | `http.client.response.body.size` | recorder (histogram), bytes received | method, server, scheme, status |
/// | `http.client.request.retries` | counter: retries and redirects | method, server, scheme |
///
/// The dimensions are `http.request.method` (the method, `_OTHER` for an unknown one),
/// `server.address` and `server.port` (the call's own host, never where a redirect went),
/// `url.scheme`, `http.response.status_code` (`_OTHER` outside 100…599) and `error.type` (the
/// ``NetworkError`` case, or the status of a 4xx or 5xx). No URL, path or identifier: each has a
/// small, bounded set of values.
public struct MetricsMiddleware: RequestMiddleware {
    private let factory: (any MetricsFactory)?

    /// Records with the factory bootstrapped in `MetricsSystem`.
    public init() {
        factory = nil
    }

    /// Records with `factory` (a test's `TestMetrics`, a second backend).
    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    public func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        let factory = self.factory ?? MetricsSystem.factory
        let base = [("http.request.method", HTTPConventions.method(request.method)),
                    ("server.address", HTTPConventions.serverAddress(request)),
                    ("server.port", String(HTTPConventions.serverPort(request))),
                    ("url.scheme", request.url.scheme ?? "")]
        let active = Meter(label: "http.client.active_requests", dimensions: base, factory: factory)
        active.increment()
        if let sent = request.bodyLength, sent > 0 {
            Recorder(label: "http.client.request.body.size", dimensions: base, factory: factory).record(sent)
        }
        let started = ContinuousClock.now
        let retries = RetryCounter(Counter(label: "http.client.request.retries", dimensions: base, factory: factory))
        let response: HTTPResponse
        do {
            response = try await next(request, observer: retries)
        } catch {
            Self.duration(since: started, dimensions: base + [("error.type", HTTPConventions.errorType(error))], factory: factory)
            active.decrement()
            throw error
        }
        let status = HTTPConventions.statusLabel(response.statusCode)
        response.onBodyEnd { end in
            var dimensions = base + [("http.response.status_code", status)]
            Recorder(label: "http.client.response.body.size", dimensions: dimensions, factory: factory).record(end.byteCount)
            if let error = end.error {
                dimensions.append(("error.type", HTTPConventions.errorType(error)))
            } else if let type = HTTPConventions.errorType(status: response.statusCode) {
                dimensions.append(("error.type", type))
            }
            Self.duration(since: started, dimensions: dimensions, factory: factory)
            active.decrement()
        }
        return response
    }

    private static func duration(since started: ContinuousClock.Instant, dimensions: [(String, String)], factory: any MetricsFactory) {
        let elapsed = started.duration(to: .now).components
        Recorder(label: "http.client.request.duration", dimensions: dimensions, factory: factory)
            .record(Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
    }
}

/// Counts the retries and redirects of one call.
private struct RetryCounter: RequestObserver {
    let counter: Counter
    init(_ counter: Counter) { self.counter = counter }
    func didRedirect(_ redirect: Redirect) { counter.increment() }
    func willRetry(after outcome: RequestOutcome, attempt: Int, delay: Duration) { counter.increment() }
}
#endif
