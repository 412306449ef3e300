import Foundation

/// ``BaseRequest/hedging``: when a hop has no answer after the delay, another copy goes down the
/// rest of the chain; the first response wins and the others are cancelled. A failure or a 5xx
/// waits for the copies still running; the last one is the hop's.
struct HedgingStep: CallStep {
    let hedging: Hedging
    let health: OriginHealth

    private enum Event: Sendable {
        case delayElapsed
        case outcome(RequestOutcome, PreparedRequest?, Duration)
    }

    nonisolated(nonsending) func run(_ exchange: Exchange, rest: CallChain,
                                     sending hop: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse {
        let origin = Origin(text: exchange.request.urlText)
        guard let origin, let delay = delay(for: origin) else {
            let started = ContinuousClock.now
            let response = try await rest.proceed(exchange, sending: &hop)
            if let origin { record([started.duration(to: .now)], for: origin) }
            return response
        }
        let extras = hedging.extras
        let (outcome, winner) = await withTaskGroup(of: Event.self) { group -> (RequestOutcome, PreparedRequest?) in
            let started = ContinuousClock.now
            func send() {
                group.addTask {
                    let sent = ContinuousClock.now
                    var inner: PreparedRequest? = exchange.request
                    do throws(NetworkError) {
                        let response = try await rest.proceed(exchange, sending: &inner)
                        return .outcome(.response(response), inner, sent.duration(to: .now))
                    } catch {
                        return .outcome(.failure(error), inner, sent.duration(to: .now))
                    }
                }
            }
            func wait() {
                group.addTask {
                    try? await Task.sleep(for: delay)
                    return .delayElapsed
                }
            }
            send()
            wait()
            var sent = 1, running = 1
            var failure: (RequestOutcome, PreparedRequest?)?
            while let event = await group.next() {
                switch event {
                case .delayElapsed:
                    guard running > 0, sent <= extras, !Task.isCancelled else { continue }
                    exchange.request.resolved.log?.note("no answer after \(NetworkLog.milliseconds(delay)) ms: "
                                                        + "sending copy \(sent + 1) (hedging)", of: exchange.request)
                    send()
                    sent += 1
                    running += 1
                    if sent <= extras { wait() }
                case .outcome(.response(let response), let inner, let took) where response.statusCode < 500 || running == 1:
                    group.cancelAll()
                    // The losers' time so far is a lower bound of what they would have taken.
                    var samples = [took]
                    if sent > 1 { samples.append(started.duration(to: .now)) }
                    record(samples, for: origin)
                    return (.response(response), inner)
                case .outcome(let failed, let inner, _):
                    running -= 1
                    failure = (failed, inner)
                    if running == 0 {
                        group.cancelAll()
                        return (failed, inner)
                    }
                }
            }
            return failure ?? (.failure(.cancelled(.init(request: exchange.request.redactedDescription,
                                                         reason: "it was cancelled while hedging"))), nil)
        }
        if let winner { hop = winner }
        return try outcome.get()
    }

    /// The wait before a copy, or `nil` while the origin has answered too few times to know.
    private func delay(for origin: Origin) -> Duration? {
        switch hedging.delay {
        case .duration(let duration): RetryPolicy.clamped(duration)
        case .percentile(let percentile): health.latencies.withLock { $0[origin]?.percentile(percentile) }
        }
    }

    private func record(_ samples: [Duration], for origin: Origin) {
        guard case .percentile = hedging.delay else { return }
        health.latencies.withLock { latencies in
            if latencies[origin] == nil, latencies.count >= OriginHealth.maximumOrigins { latencies.removeAll() }
            for sample in samples { latencies[origin, default: LatencySamples()].add(sample) }
        }
    }
}
