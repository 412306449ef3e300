import Foundation

/// The last step, OkHttp's CallServerInterceptor, and the only one that reaches a backend: where a
/// hop becomes a response (any status) or a failure, through libcurl or the mocks.
enum WireStep: CallStep {
    case curl(CurlTransport)
    case mocks(MockTransport)

    @inline(__always)
    nonisolated(nonsending) func run(_ exchange: Exchange, rest _: CallChain,
                                     sending _: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse {
        switch self {
        case .curl(let transport): try await transport.send(exchange.request, download: exchange.download)
        case .mocks(let transport): try await transport.send(exchange.request, download: exchange.download)
        }
    }
}

extension CallChain {
    /// The chain of `resolved`, from its first step: only the steps it uses (see ``CallChain``).
    /// A live request without middlewares or a cache shares one chain with every other.
    init(for resolved: ResolvedRequest, mocks: MockRegistry, health: OriginHealth? = nil) {
        self.init(steps: Self.steps(for: resolved, mocks: mocks, health: health), position: 0)
    }

    private static let bare = Steps([FollowUpStep(), WireStep.curl(CurlTransport())], followUp: 0, wire: .curl(CurlTransport()))

    private static func steps(for resolved: ResolvedRequest, mocks: MockRegistry, health: OriginHealth?) -> Steps {
        let middlewares = resolved.middlewares, networkMiddlewares = resolved.networkMiddlewares
        if let directory = resolved.mockResponsesDirectory {
            let wire = WireStep.mocks(MockTransport(store: MockStore(directory: directory, usage: mocks.usage), registry: mocks))
            return middlewares.isEmpty ? Steps([FollowUpStep(), wire], followUp: 0, wire: wire)
                : Steps([MiddlewareStep(middlewares: middlewares), FollowUpStep(), wire], followUp: 1, wire: wire)
        }
        guard !middlewares.isEmpty || resolved.cache != nil || !networkMiddlewares.isEmpty || resolved.authentication?.sigV4 != nil
            || resolved.originLimit != nil || resolved.circuitBreaker != nil || resolved.hedging != nil else {
            return bare
        }
        var steps: [any CallStep] = []
        if !middlewares.isEmpty { steps.append(MiddlewareStep(middlewares: middlewares)) }
        let followUp = steps.count
        steps.append(FollowUpStep())
        if let caching = resolved.cache { steps.append(CacheStep(caching: caching)) }
        if let health {
            if let hedging = resolved.hedging { steps.append(HedgingStep(hedging: hedging, health: health)) }
            if let breaker = resolved.circuitBreaker { steps.append(BreakerStep(breaker: breaker, health: health)) }
        }
        if let limit = resolved.originLimit { steps.append(limit) }
        if let signer = resolved.authentication?.sigV4 { steps.append(SigningStep(signer: signer)) }
        // Observers come with middlewares, and may watch the wire.
        if !networkMiddlewares.isEmpty || !middlewares.isEmpty { steps.append(NetworkStep(middlewares: networkMiddlewares)) }
        steps.append(bare.wire)
        return Steps(steps, followUp: followUp, wire: bare.wire)
    }
}
