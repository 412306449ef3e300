import Foundation

/// One step of a call: it gets the request as the steps before it left it and answers with a
/// response, handing the request on to the rest of the chain once, several times or not at all.
/// It holds configuration only; the request's state comes in the ``Exchange``, so that one chain
/// serves every run of the request, its reconnections included.
protocol CallStep: Sendable {
    /// `hop` is the last request handed towards the wire, for the error and the log to name;
    /// a step that hands requests on updates it.
    nonisolated(nonsending) func run(_ exchange: Exchange, rest: CallChain,
                                     sending hop: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse
}

/// A call's steps in order, outermost first, and the position of the next to run. Built once per
/// resolved request by ``CallChain/init(for:mocks:)``: a step that is off is not in it (the
/// Architecture article's table says when each one is).
struct CallChain: Sendable {
    let steps: Steps
    let position: Int

    /// The steps, shared by every position of the chain.
    final class Steps: Sendable {
        let all: [any CallStep]
        /// Where ``FollowUpStep`` is: a reconnected event stream runs the chain from there.
        let followUp: Int
        let wire: WireStep

        init(_ all: [any CallStep], followUp: Int, wire: WireStep) {
            self.all = all
            self.followUp = followUp
            self.wire = wire
        }
    }

    /// Runs the step at this position; the follow-up and the wire, in every chain, are called
    /// directly, not through the protocol.
    @inline(__always)
    nonisolated(nonsending) func proceed(_ exchange: Exchange, sending hop: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse {
        let rest = CallChain(steps: steps, position: position + 1)
        if position == steps.followUp { return try await FollowUpStep().run(exchange, rest: rest, sending: &hop) }
        if rest.position == steps.all.count { return try await steps.wire.run(exchange, rest: rest, sending: &hop) }
        return try await steps.all[position].run(exchange, rest: rest, sending: &hop)
    }

    /// The chain from the follow-up step on: what a reconnected event stream runs.
    var fromFollowUp: CallChain { CallChain(steps: steps, position: steps.followUp) }

    var wire: WireStep { steps.wire }
}

/// What travels down the chain: the hop to send, and what the steps before it attached.
struct Exchange: Sendable {
    /// The request as the steps before this one left it.
    var request: PreparedRequest
    /// The call as it started: its first attempt as prepared, and what preparing it again needs.
    var base: CallBase
    /// What the steps need of the call itself: its settings and when it started.
    let call: CallContext
    /// The temporary file of a download's body for this hop (``FollowUpStep`` makes it), or `nil`.
    var download: PendingDownload?
    /// The observers of the middlewares around this point (``RequestMiddlewareNext/callAsFunction(_:observer:)``).
    var observers: [any RequestObserver] = []
    /// The request's log line, written once by the cache step; `nil` without a cache or a log.
    var attemptLine: AttemptLine?
}

/// The resolved request (a reconnection's has its `Last-Event-ID`) and when the call started.
struct CallContext: Sendable {
    let resolved: ResolvedRequest
    let started: ContinuousClock.Instant

    var remainingTime: TimeInterval {
        resolved.timeout - (ContinuousClock.now - started).seconds
    }
}

/// The first attempt as prepared, and what a token refresh needs to prepare it again.
struct CallBase: Sendable {
    let prepared: PreparedRequest
    let providerHeaders: [String: String]
    let credentials: Authentication.Credentials?
    /// What the middlewares changed, replayed on a request prepared again with fresh credentials.
    var changes: MiddlewareChanges?

    func prepared(with credentials: Authentication.Credentials, by resolved: ResolvedRequest) throws(NetworkError) -> PreparedRequest {
        let fresh = try resolved.prepare(providerHeaders: providerHeaders, credentials: credentials)
        guard let changes else { return fresh }
        return fresh.adapted(changes.request.replayed(on: fresh.outgoing()))
    }
}

/// The request as the call's middlewares passed it on: replayed on a request prepared again.
final class MiddlewareChanges: Sendable {
    let request: OutgoingRequest
    init(_ request: OutgoingRequest) { self.request = request }
}
