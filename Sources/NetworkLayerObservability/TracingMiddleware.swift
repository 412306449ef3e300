#if Observability
import NetworkLayer
import Synchronization
import Tracing

/// One client span per call (OpenTelemetry's HTTP client conventions), through swift-distributed-tracing.
///
/// The span is a child of the caller's task-local `ServiceContext`; its name is the method, its
/// kind `.client`. Attributes: `http.request.method`, `server.address`, `server.port`, `url.full`
/// with secret query values redacted, `http.response.status_code`, `network.protocol.version`,
/// `http.request.resend_count` when a retry or a redirect sent the request again, `error.type`
/// on a failure (the ``NetworkError`` case, or the status of a 4xx or 5xx, which also mark the
/// span as an error). A mocked call carries `networklayer.mocked`, an answer of the response cache
/// `networklayer.cache.status`, a request naming its operation (``OutgoingRequest/operationID``)
/// `networklayer.operation.id`. Each retry and redirect is an event on the span, and so is each
/// ``CallEvent`` of the call's hops on the wire, named as its kind, at its time
/// (`network.connection.reused` on `connectionAcquired`).
///
/// The span's context is injected (W3C `traceparent`/`tracestate` with an OpenTelemetry tracer)
/// into every request that goes on the wire: each attempt and each hop of a redirect. For a
/// stream, the span ends with the stream's body, not with its head.
///
/// Put it first among the manager's middlewares, so that its span covers the others.
public struct TracingMiddleware: RequestMiddleware {
    private let tracer: (any Tracer)?

    /// Traces with the tracer bootstrapped in `InstrumentationSystem`, read at each call.
    public init() {
        tracer = nil
    }

    /// Traces with `tracer`.
    public init(tracer: some Tracer) {
        self.tracer = tracer
    }

    public func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        let tracer: any Tracer = self.tracer ?? InstrumentationSystem.tracer
        // Nothing to record, nothing to inject: the call as if there were no middleware.
        if Self.isNoOp(tracer) { return try await next(request) }
        return try await trace(request, next: next, with: tracer)
    }

    /// `false` while the tracer is swift-distributed-tracing's `NoOpTracer` (none bootstrapped):
    /// a call then runs without this middleware.
    public var isActive: Bool {
        if let tracer { return !Self.isNoOp(tracer) }
        // Nothing bootstrapped: decided without `InstrumentationSystem.tracer`'s search of the instruments.
        if type(of: InstrumentationSystem.instrument) == NoOpInstrument.self { return false }
        return !Self.isNoOp(InstrumentationSystem.tracer)
    }

    /// `true`: the span gets the call's connection events.
    public var observesCallEvents: Bool { true }

    private static func isNoOp(_ tracer: any Tracer) -> Bool {
        type(of: tracer) == NoOpTracer.self
    }

    private func trace(_ request: OutgoingRequest, next: RequestMiddlewareNext, with tracer: some Tracer) async throws(NetworkError) -> HTTPResponse {
        let span = tracer.startSpan(HTTPConventions.spanName(request.method), context: ServiceContext.current ?? .topLevel, ofKind: .client)
        guard span.isRecording else {
            defer { span.end() }
            return try await next(request)
        }
        let origin = request.origin
        span.updateAttributes { attributes in
            attributes["http.request.method"] = HTTPConventions.method(request.method)
            attributes["server.address"] = origin.host
            attributes["server.port"] = origin.port
            attributes["url.full"] = request.redactedURL
            if let operationID = request.operationID { attributes["networklayer.operation.id"] = operationID }
        }
        let observer = SpanObserver(span: span, tracer: tracer)
        let outcome = await ServiceContext.$current.withValue(span.context) { () async -> Result<HTTPResponse, NetworkError> in
            do throws(NetworkError) {
                return .success(try await next(request, observer: observer))
            } catch {
                return .failure(error)
            }
        }
        if observer.resends > 0 { span.attributes["http.request.resend_count"] = observer.resends }
        switch outcome {
        case .failure(let error):
            Self.fail(span, with: error)
            span.end()
            throw error
        case .success(let response):
            span.updateAttributes { attributes in
                attributes["http.response.status_code"] = response.statusCode
                if let version = HTTPConventions.protocolVersion(response) { attributes["network.protocol.version"] = version }
                if response.isMocked { attributes["networklayer.mocked"] = true }
                if let cache = response.cacheStatus { attributes["networklayer.cache.status"] = HTTPConventions.cacheStatus(cache) }
                if let type = HTTPConventions.errorType(status: response.statusCode) { attributes["error.type"] = type }
            }
            if response.statusCode >= 400 { span.setStatus(SpanStatus(code: .error)) }
            response.onBodyEnd { end in
                if let error = end.error { Self.fail(span, with: error) }
                span.end()
            }
            return response
        }
    }

    private static func fail(_ span: some Span, with error: NetworkError) {
        span.attributes["error.type"] = HTTPConventions.errorType(error)
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: error.errorDescription))
    }
}

/// Injects the span's context into each request on the wire, and records retries and redirects.
private final class SpanObserver<T: Tracer>: RequestObserver {
    let span: T.Span
    let tracer: T
    private let resendCount = Atomic(0)
    /// One reading of both clocks, which every event's time is converted through.
    private let anchor = (time: ContinuousClock.now, wall: DefaultTracerClock.now.nanosecondsSinceEpoch)

    init(span: T.Span, tracer: T) {
        self.span = span
        self.tracer = tracer
    }

    var resends: Int { resendCount.load(ordering: .relaxed) }

    func willSend(_ request: inout OutgoingRequest) {
        tracer.inject(span.context, into: &request, using: HeaderInjector())
    }

    func didRedirect(_ redirect: Redirect) {
        resendCount.add(1, ordering: .relaxed)
        span.addEvent(SpanEvent(name: "redirect", attributes: [
            "http.response.status_code": .int64(Int64(redirect.statusCode)),
            "server.address": .string(redirect.to.host ?? ""),
        ]))
    }

    /// The event at its own time, on the tracer's clock through one anchor: the order of the
    /// call's monotonic times is kept.
    func receive(_ event: CallEvent) {
        var attributes: SpanAttributes = [:]
        switch event.kind {
        case .connectionAcquired(let reused): attributes["network.connection.reused"] = reused
        case .responseHeadersReceived(let status): attributes["http.response.status_code"] = status
        case .responseBodyEnd(let bytes): attributes["http.response.body.size"] = Int(bytes)
        case .callFailed(let error): attributes["error.type"] = HTTPConventions.errorType(error)
        default: break
        }
        let offset = (event.time - anchor.time).components
        let nanoseconds = Int64(anchor.wall) &+ offset.seconds &* 1_000_000_000 &+ offset.attoseconds / 1_000_000_000
        let instant = DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: UInt64(max(nanoseconds, 0)))
        span.addEvent(SpanEvent(name: event.kind.name, at: instant, attributes: attributes))
    }

    func willRetry(after outcome: RequestOutcome, attempt: Int, delay: Duration) {
        resendCount.add(1, ordering: .relaxed)
        var attributes: SpanAttributes = ["http.request.resend_count": .int64(Int64(attempt))]
        switch outcome {
        case .response(let response):
            attributes["http.response.status_code"] = response.statusCode
            if let type = HTTPConventions.errorType(status: response.statusCode) { attributes["error.type"] = type }
        case .failure(let error):
            attributes["error.type"] = HTTPConventions.errorType(error)
        }
        attributes["networklayer.retry.delay"] = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        span.addEvent(SpanEvent(name: "retry", attributes: attributes))
    }
}

/// Sets a propagation field as a header of the request (never secret: it names a trace, not a caller).
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into request: inout OutgoingRequest) {
        request.setHeader(key, value, secret: false)
    }
}
#endif
