import Foundation

/// The provider's ``CircuitBreaker``: each hop asks the origin's circuit first, fails at once
/// while it is open, and counts its outcome in it.
struct BreakerStep: CallStep {
    let breaker: CircuitBreaker
    let health: OriginHealth

    nonisolated(nonsending) func run(_ exchange: Exchange, rest: CallChain,
                                     sending hop: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse {
        let request = exchange.request
        guard let origin = Origin(text: request.urlText) else { return try await rest.proceed(exchange, sending: &hop) }
        let (admission, change) = health.admit(origin, under: breaker)
        report(change, of: request)
        if case .refused(let until) = admission {
            throw .circuitOpen(request, origin: origin, until: until)
        }
        let outcome: RequestOutcome
        do throws(NetworkError) {
            outcome = .response(try await rest.proceed(exchange, sending: &hop))
        } catch {
            outcome = .failure(error)
        }
        report(health.record(outcome, of: admission, to: origin, under: breaker), of: request)
        return try outcome.get()
    }

    private func report(_ change: CircuitBreaker.StateChange?, of request: PreparedRequest) {
        guard let change else { return }
        request.resolved.log?.note("circuit breaker for \(change.origin): \(change.from) → \(change.to): \(change.reason)", of: request)
        breaker.onStateChange?(change)
    }
}

extension NetworkError {
    static func circuitOpen(_ request: PreparedRequest, origin: Origin, until: Date) -> NetworkError {
        let left = max(until.timeIntervalSinceNow, 0)
        // Half-open, the probes decide when the rest may go: there is no time to give.
        let when = left > 0 ? "it lets a request through in \(left.compactText) s" : "its probes are trying the server; try again shortly"
        var context = Context(request: request.redactedDescription,
                              reason: "the circuit breaker for \(origin) is open after its server kept failing; \(when)")
        context.circuitOpenUntil = until
        return .circuitOpen(context)
    }
}
