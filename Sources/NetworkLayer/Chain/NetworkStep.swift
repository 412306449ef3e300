import Foundation

/// Each hop on the wire, OkHttp's network interceptors: the observers that watch the wire are told
/// (``RequestObserver/willSend(_:)``), then the network middlewares handle it as signed (what they
/// change is signed again). Never for a mocked call, which sends nothing on the wire.
struct NetworkStep: CallStep {
    let middlewares: [any RequestMiddleware]

    nonisolated(nonsending) func run(_ exchange: Exchange, rest: CallChain,
                                     sending hop: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse {
        if let events = exchange.call.resolved.events, !exchange.observers.isEmpty { events.observe(exchange.observers) }
        let watching = exchange.observers.isEmpty ? [] : exchange.observers.filter(\.watchesRequestsOnTheWire)
        guard !watching.isEmpty || !middlewares.isEmpty else { return try await rest.proceed(exchange, sending: &hop) }
        var observed = exchange.request
        if !watching.isEmpty {
            var outgoing = observed.outgoing()
            for observer in watching { observer.willSend(&outgoing) }
            if let problem = outgoing.problem() {
                throw .invalidRequest(.init(request: observed.redactedDescription, reason: "a request observer \(problem)"))
            }
            observed = SigningStep.signed(observed.adapted(outgoing))
        }
        guard !middlewares.isEmpty else {
            var sent = exchange
            sent.request = observed
            return try await rest.proceed(sent, sending: &hop)
        }
        return try await intercept(at: 0, observed.outgoing(), hop: observed, exchange: exchange, rest: rest)
    }

    private func intercept(at index: Int, _ request: OutgoingRequest, hop: PreparedRequest, exchange: Exchange,
                           rest: CallChain) async throws(NetworkError) -> HTTPResponse {
        guard index < middlewares.count else {
            var sent = exchange
            sent.request = request.isModified ? SigningStep.signed(hop.adapted(request)) : hop
            var inner: PreparedRequest? = sent.request
            return try await rest.proceed(sent, sending: &inner)
        }
        let middleware = middlewares[index]
        let next = RequestMiddlewareNext(observers: []) { request, _ throws(NetworkError) in
            try MiddlewareStep.check(request, changedBy: middleware, of: hop)
            return try await self.intercept(at: index + 1, request, hop: hop, exchange: exchange, rest: rest)
        }
        return try await middleware.intercept(request, next: next).answering(hop)
    }
}
