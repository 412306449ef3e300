import Foundation

/// The call's middlewares (the manager's, the provider's, the request's, outermost first): the last
/// one's `next` hands its request on as the first attempt, what they changed kept to be replayed on
/// a request prepared again (``MiddlewareChanges``), and their observers with it.
struct MiddlewareStep: CallStep {
    let middlewares: [any RequestMiddleware]

    nonisolated(nonsending) func run(_ exchange: Exchange, rest: CallChain,
                                     sending hop: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse {
        // `next` may run on several tasks at once (a hedging middleware): the last hop sent is
        // shared, for the error and the log to describe.
        let lastHop = Protected<PreparedRequest?>(exchange.request)
        defer { hop = lastHop.withLock { $0 } }
        let response = try await intercept(at: 0, exchange.request.outgoing(), observers: exchange.observers, exchange: exchange,
                                           rest: rest, lastHop: lastHop)
        return response.answering(lastHop.withLock { $0 } ?? exchange.request)
    }

    private func intercept(at index: Int, _ request: OutgoingRequest, observers: [any RequestObserver], exchange: Exchange,
                           rest: CallChain, lastHop: Protected<PreparedRequest?>) async throws(NetworkError) -> HTTPResponse {
        guard index < middlewares.count else {
            return try await proceed(changedBy: request, observers: observers, exchange: exchange, rest: rest, lastHop: lastHop)
        }
        let middleware = middlewares[index]
        let next = RequestMiddlewareNext(observers: observers) { request, observers throws(NetworkError) in
            try Self.check(request, changedBy: middleware, of: exchange.request)
            return try await self.intercept(at: index + 1, request, observers: observers, exchange: exchange, rest: rest, lastHop: lastHop)
        }
        return try await middleware.intercept(request, next: next)
    }

    /// The rest of the chain, with the first attempt the middlewares changed to `request`.
    private func proceed(changedBy request: OutgoingRequest, observers: [any RequestObserver], exchange: Exchange, rest: CallChain,
                         lastHop: Protected<PreparedRequest?>) async throws(NetworkError) -> HTTPResponse {
        var next = exchange
        if request.isModified {
            let base = exchange.base
            next.base = CallBase(prepared: base.prepared.adapted(request), providerHeaders: base.providerHeaders,
                                 credentials: base.credentials, changes: MiddlewareChanges(request))
            next.request = next.base.prepared
        }
        next.observers = observers
        var hop: PreparedRequest? = next.request
        defer { lastHop.withLock { $0 = hop } }
        do throws(NetworkError) {
            return try await rest.proceed(next, sending: &hop)
        } catch {
            // Scrubbed before any middleware sees it (a span records its description), not only
            // when the call ends: a server's words in a reason can quote a secret.
            throw hop.map { error.redactingSecrets($0.redactor.secretValues(of: $0)) } ?? error
        }
    }

    /// Fails with ``NetworkError/invalidRequest(_:)`` when what `middleware` passed on cannot be sent.
    static func check(_ request: OutgoingRequest, changedBy middleware: any RequestMiddleware,
                      of prepared: PreparedRequest) throws(NetworkError) {
        if let problem = request.problem() {
            throw .invalidRequest(.init(request: prepared.redactedDescription,
                                        reason: "the middleware \(HeaderFields.printable(String(describing: type(of: middleware)))) \(problem)"))
        }
    }
}
