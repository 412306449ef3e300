#if Observability
import CoreMetrics
import NetworkLayer

/// The HTTP client metrics of OpenTelemetry's conventions, through swift-metrics.
///
/// | Metric | Kind | Dimensions |
/// |---|---|---|
/// | `http.client.request.duration` | recorder (histogram), seconds, until the body's end | method, server, scheme, status, `error.type` |
/// | `http.client.active_requests` | meter | method, server, scheme |
/// | `http.client.request.body.size` | recorder (histogram), bytes sent | method, server, scheme |
/// | `http.client.response.body.size` | recorder (histogram), bytes received | method, server, scheme, status |
/// | `http.client.request.retries` | counter: retries and redirects | method, server, scheme |
/// | `http.client.queue.duration` | recorder (histogram), seconds waited under ``OriginLimit``, when it waited | method, server, scheme |
/// | `http.client.origin.limit` | gauge: the origin's limit (an adaptive one's current value) | method, server, scheme |
///
/// The dimensions are `http.request.method`, `server.address` and `server.port` (the call's own
/// host, never where a redirect went), `url.scheme`, `http.response.status_code` and `error.type`
/// (see `HTTPConventions`): no URL, path or identifier, so each has a small, bounded set of values.
public struct MetricsMiddleware: RequestMiddleware {
    private let factory: (any MetricsFactory)?
    private let metrics = MetricHandles()

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
        // Nothing would be recorded: the call as if there were no middleware.
        if Self.isNoOp(factory) { return try await next(request) }
        let origin = request.origin
        let call = CallDimensions(method: HTTPConventions.method(request.method), host: origin.host, port: origin.port, scheme: origin.scheme)
        let perCall = metrics.perCall(call, factory: factory)
        perCall.active.increment()
        if let sent = request.bodyLength, sent > 0 { perCall.requestBodySize.record(sent) }
        let started = ContinuousClock.now
        let response: HTTPResponse
        do {
            response = try await next(request, observer: RetryCounter(counter: perCall.retries))
        } catch {
            metrics.duration(call, status: nil, errorType: HTTPConventions.errorType(error), factory: factory).record(seconds(since: started))
            perCall.active.decrement()
            throw error
        }
        if let transfer = response.metrics {
            if transfer.queueTime > .zero { perCall.queueDuration.record(seconds(transfer.queueTime)) }
            if let limit = transfer.originLimit { perCall.originLimit.record(limit) }
        }
        let status = HTTPConventions.statusLabel(response.statusCode)
        let statusError = HTTPConventions.errorType(status: response.statusCode)
        let metrics = self.metrics
        response.onBodyEnd { end in
            let errorType = end.error.map(HTTPConventions.errorType) ?? statusError
            metrics.responseBodySize(call, status: status, factory: factory).record(end.byteCount)
            metrics.duration(call, status: status, errorType: errorType, factory: factory).record(seconds(since: started))
            perCall.active.decrement()
        }
        return response
    }

    /// `false` while the factory is swift-metrics' `NOOPMetricsHandler` (none bootstrapped): a
    /// call then runs without this middleware.
    public var isActive: Bool {
        !Self.isNoOp(factory ?? MetricsSystem.factory)
    }

    private static func isNoOp(_ factory: any MetricsFactory) -> Bool {
        type(of: factory) == NOOPMetricsHandler.self
    }
}

private func seconds(since started: ContinuousClock.Instant) -> Double {
    seconds(started.duration(to: .now))
}

private func seconds(_ duration: Duration) -> Double {
    let components = duration.components
    return Double(components.seconds) + Double(components.attoseconds) / 1e18
}

private struct CallDimensions: Hashable {
    let method: String
    let host: String
    let port: Int
    let scheme: String

    var pairs: [(String, String)] {
        [("http.request.method", method), ("server.address", host), ("server.port", String(port)), ("url.scheme", scheme)]
    }
}

/// The metrics made so far, by dimensions: swift-metrics' handles are made once and kept, as its docs recommend.
private final class MetricHandles: Sendable {
    struct PerCall: Sendable {
        let active: Meter
        let requestBodySize: Recorder
        let retries: Counter
        let queueDuration: Recorder
        let originLimit: Gauge
    }

    private struct Outcome: Hashable {
        let call: CallDimensions
        let status: String?
        let errorType: String?
    }

    private struct State {
        var perCall: [CallDimensions: PerCall] = [:]
        var durations: [Outcome: Recorder] = [:]
        var responseBodySizes: [Outcome: Recorder] = [:]
    }

    private let state = Protected(State())

    func perCall(_ call: CallDimensions, factory: any MetricsFactory) -> PerCall {
        if let handles = state.withLock({ $0.perCall[call] }) { return handles }
        let pairs = call.pairs
        let handles = PerCall(active: Meter(label: "http.client.active_requests", dimensions: pairs, factory: factory),
                              requestBodySize: Recorder(label: "http.client.request.body.size", dimensions: pairs, factory: factory),
                              retries: Counter(label: "http.client.request.retries", dimensions: pairs, factory: factory),
                              queueDuration: Recorder(label: "http.client.queue.duration", dimensions: pairs, aggregate: true, factory: factory),
                              originLimit: Gauge(label: "http.client.origin.limit", dimensions: pairs, factory: factory))
        return state.withLock { state in
            if let existing = state.perCall[call] { return existing }
            state.perCall[call] = handles
            return handles
        }
    }

    func duration(_ call: CallDimensions, status: String?, errorType: String?, factory: any MetricsFactory) -> Recorder {
        recorder(\.durations, "http.client.request.duration", Outcome(call: call, status: status, errorType: errorType), factory: factory)
    }

    func responseBodySize(_ call: CallDimensions, status: String, factory: any MetricsFactory) -> Recorder {
        recorder(\.responseBodySizes, "http.client.response.body.size", Outcome(call: call, status: status, errorType: nil), factory: factory)
    }

    private func recorder(_ table: WritableKeyPath<State, [Outcome: Recorder]>, _ label: String, _ key: Outcome,
                          factory: any MetricsFactory) -> Recorder {
        if let recorder = state.withLock({ $0[keyPath: table][key] }) { return recorder }
        var pairs = key.call.pairs
        if let status = key.status { pairs.append(("http.response.status_code", status)) }
        if let errorType = key.errorType { pairs.append(("error.type", errorType)) }
        let recorder = Recorder(label: label, dimensions: pairs, aggregate: true, factory: factory)
        return state.withLock { state in
            if let existing = state[keyPath: table][key] { return existing }
            state[keyPath: table][key] = recorder
            return recorder
        }
    }
}

/// Counts the retries and redirects of one call; it has no use for the requests on the wire.
private struct RetryCounter: RequestObserver {
    let counter: Counter
    var watchesRequestsOnTheWire: Bool { false }
    func didRedirect(_ redirect: Redirect) { counter.increment() }
    func willRetry(after outcome: RequestOutcome, attempt: Int, delay: Duration) { counter.increment() }
}
#endif
