import Foundation

/// Each hop takes a place at its origin's limit (``OriginLimit``) before the wire, waiting in the
/// origin's queue when all are taken, and gives it back when the response's head arrives or the
/// hop fails. A streamed body or an open WebSocket does not keep its place: long-lived event
/// streams would otherwise starve every other request to their origin (OkHttp's per-host limit,
/// which counts a call until its body ends, is known to do so); the connections beneath are
/// libcurl's ``ConnectionLimits``. Never for a mocked call.
struct LimitStep: CallStep {
    let queues: OriginQueues
    let limit: OriginLimit
    let priority: RequestPriority

    nonisolated(nonsending) func run(_ exchange: Exchange, rest: CallChain,
                                     sending hop: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse {
        let request = exchange.request
        if let problem = limit.problem { throw .invalidRequest(.init(request: request.redactedDescription, reason: problem)) }
        // A URL libcurl cannot read has no origin to count: the wire reports it.
        guard let origin = Origin(text: request.urlText) else { return try await rest.proceed(exchange, sending: &hop) }
        var sent = exchange
        let waited: Duration, asked = ContinuousClock.now
        let admission = await queues.admit(to: origin, limit: limit, priority: priority, patience: exchange.call.remainingTime)
        // A hop that waited reports `queued` at the time it asked, once its wait is over.
        if case .immediate = admission {} else { exchange.call.resolved.events?.emit(.queued, at: asked) }
        switch admission {
        case .immediate: waited = .zero
        case .granted(let time):
            waited = time
            // The wait is part of the request's timeout.
            sent.request = request.limited(to: exchange.call.remainingTime)
        case .cancelled:
            throw .cancelled(.init(request: request.redactedDescription,
                                   reason: "it was cancelled while it waited for a place under its origin's limit of \(limit)"))
        case .timedOut(let time):
            throw .timeOut(.init(request: request.redactedDescription,
                                 reason: "it waited \(time.seconds.compactText) s for a place under its origin's limit of \(limit) "
                                     + "and its timeout passed; raise the limit or the timeout, or send fewer requests at once"))
        }
        let start = ContinuousClock.now
        do throws(NetworkError) {
            var response = try await rest.proceed(sent, sending: &hop)
            let state = queues.release(origin, latency: start.duration(to: .now))
            response.metrics?.queueTime = waited
            response.metrics?.originLimit = state
            return response
        } catch {
            // A timeout says the origin is slow; other failures say nothing of its latency.
            if case .timeOut = error { queues.release(origin, latency: start.duration(to: .now)) } else { queues.release(origin, latency: nil) }
            throw error
        }
    }
}
