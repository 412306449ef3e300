import Foundation

/// The middlewares around a call: the manager's, the provider's, the request's, outermost first;
/// the innermost `next` runs the attempts (``RequestPipeline/attempts(from:sending:)``).
extension RequestPipeline {
    nonisolated(nonsending) func aroundMiddlewares(_ base: Base, sending hop: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse {
        // `next` may run on several tasks at once (a hedging middleware): the last hop sent is
        // shared, for the error and the log to describe.
        let lastHop = Protected<PreparedRequest?>(base.prepared)
        defer { hop = lastHop.withLock { $0 } }
        let response = try await intercept(at: 0, base.prepared.outgoing(), observers: [], base: base, lastHop: lastHop)
        return response.answering(lastHop.withLock { $0 } ?? base.prepared)
    }

    private func intercept(at index: Int, _ request: OutgoingRequest, observers: [any RequestObserver], base: Base,
                           lastHop: Protected<PreparedRequest?>) async throws(NetworkError) -> HTTPResponse {
        let middlewares = resolved.middlewares
        guard index < middlewares.count else {
            return try await attempts(changedBy: request, observers: observers, base: base, lastHop: lastHop)
        }
        let middleware = middlewares[index]
        let next = RequestMiddlewareNext(observers: observers) { request, observers throws(NetworkError) in
            try Self.check(request, changedBy: middleware, of: base.prepared)
            return try await self.intercept(at: index + 1, request, observers: observers, base: base, lastHop: lastHop)
        }
        return try await middleware.intercept(request, next: next)
    }

    /// The attempts of a call whose first attempt the middlewares changed to `request`.
    private func attempts(changedBy request: OutgoingRequest, observers: [any RequestObserver], base: Base,
                          lastHop: Protected<PreparedRequest?>) async throws(NetworkError) -> HTTPResponse {
        var base = base
        if request.isModified {
            base = Base(prepared: base.prepared.adapted(request), providerHeaders: base.providerHeaders,
                        credentials: base.credentials, changes: MiddlewareChanges(request))
        }
        var pipeline = self
        if !observers.isEmpty {
            // Those that watch the wire get a transport of their own; a mocked call sends nothing on the wire.
            let watching = observers.filter(\.watchesRequestsOnTheWire)
            let transport = watching.isEmpty || resolved.mockResponsesDirectory != nil
                ? self.transport : Self.wireTransport(for: resolved, observers: watching)
            pipeline = RequestPipeline(resolved: resolved, transport: transport, started: started, observers: observers)
        }
        var hop: PreparedRequest? = base.prepared
        defer { lastHop.withLock { $0 = hop } }
        do throws(NetworkError) {
            return try await pipeline.attempts(from: base, sending: &hop)
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

    /// Where a request's hops go: the mocks, or libcurl (behind the network middlewares, when
    /// there are any), behind the response cache when the request has one.
    static func transport(for resolved: ResolvedRequest, mocks: MockRegistry) -> any Transport {
        if let directory = resolved.mockResponsesDirectory { return MockTransport(store: MockStore(directory: directory), registry: mocks) }
        guard resolved.networkMiddlewares.isEmpty else { return wireTransport(for: resolved, observers: []) }
        guard let caching = resolved.cache else { return CurlTransport() }
        return CachingTransport(caching, wrapping: CurlTransport(), log: resolved.log)
    }

    static func wireTransport(for resolved: ResolvedRequest, observers: [any RequestObserver]) -> any Transport {
        let wire = WireTransport(network: CurlTransport(), middlewares: resolved.networkMiddlewares, observers: observers)
        guard let caching = resolved.cache else { return wire }
        return CachingTransport(caching, wrapping: wire, log: resolved.log)
    }
}

/// The transport of the requests that go on the wire, behind the network middlewares: each one
/// is told of each hop (``RequestObserver/willSend(_:)`` first), then the middlewares handle it,
/// signed as it would be sent (the transfer plan signs again what they change).
struct WireTransport<Network: Transport>: Transport {
    let network: Network
    let middlewares: [any RequestMiddleware]
    let observers: [any RequestObserver]

    nonisolated(nonsending) func send(_ hop: PreparedRequest, download: PendingDownload?) async throws(NetworkError) -> HTTPResponse {
        var observed = hop
        if !observers.isEmpty {
            var outgoing = hop.outgoing()
            for observer in observers { observer.willSend(&outgoing) }
            if let problem = outgoing.problem() {
                throw .invalidRequest(.init(request: hop.redactedDescription, reason: "a request observer \(problem)"))
            }
            observed = hop.adapted(outgoing)
        }
        if !middlewares.isEmpty { observed = observed.signedForNetworkMiddlewares() }
        return try await intercept(at: 0, observed.outgoing(), hop: observed, download: download)
    }

    private func intercept(at index: Int, _ request: OutgoingRequest, hop: PreparedRequest,
                           download: PendingDownload?) async throws(NetworkError) -> HTTPResponse {
        guard index < middlewares.count else {
            return try await network.send(hop.adapted(request), download: download)
        }
        let middleware = middlewares[index]
        let next = RequestMiddlewareNext(observers: []) { request, _ throws(NetworkError) in
            try RequestPipeline.check(request, changedBy: middleware, of: hop)
            return try await self.intercept(at: index + 1, request, hop: hop, download: download)
        }
        return try await middleware.intercept(request, next: next).answering(hop)
    }
}
