import Foundation

/// A manager's health per origin: its circuits and its recent answer times. Touched only
/// by requests whose provider has a breaker or that hedge.
final class OriginHealth: Sendable {
    let circuits = Protected<[Origin: Circuit]>([:])
    let latencies = Protected<[Origin: LatencySamples]>([:])
    /// Origins remembered, each map apart; beyond it closed circuits and all samples are forgotten.
    static let maximumOrigins = 1024

    /// One origin's circuit.
    struct Circuit {
        enum Phase {
            case closed(failures: Int)
            case open(until: ContinuousClock.Instant, date: Date)
            case halfOpen(inFlight: Int)
        }
        var phase = Phase.closed(failures: 0)

        var state: CircuitBreaker.State {
            switch phase {
            case .closed: .closed
            case .open(_, let date): .open(until: date)
            case .halfOpen: .halfOpen
            }
        }
    }

    enum Admission {
        case pass
        /// A half-open probe: its outcome decides, and it frees its slot.
        case probe
        case refused(until: Date)
    }

    /// Whether a request to `origin` may go, and the change of state that deciding made.
    func admit(_ origin: Origin, under breaker: CircuitBreaker) -> (Admission, CircuitBreaker.StateChange?) {
        let now = ContinuousClock.now
        return circuits.withLock { circuits in
            guard var circuit = circuits[origin] else { return (.pass, nil) }
            switch circuit.phase {
            case .closed:
                return (.pass, nil)
            case .open(let until, let date):
                guard now >= until else { return (.refused(until: date), nil) }
                circuit.phase = .halfOpen(inFlight: 1)
                circuits[origin] = circuit
                return (.probe, .init(origin: origin.description, from: .open(until: date), to: .halfOpen,
                                      reason: "the open time ended; letting \(breaker.probes) probe(s) through"))
            case .halfOpen(let inFlight):
                guard inFlight < breaker.probes else { return (.refused(until: Date()), nil) }
                circuit.phase = .halfOpen(inFlight: inFlight + 1)
                circuits[origin] = circuit
                return (.probe, nil)
            }
        }
    }

    /// Counts `outcome` of a request `admission` let through; the change of state it made.
    func record(_ outcome: RequestOutcome, of admission: Admission, to origin: Origin,
                under breaker: CircuitBreaker) -> CircuitBreaker.StateChange? {
        let failed = breaker.isFailure(outcome)
        // A cancellation or another outcome the rule does not call a failure, which is not an
        // answer either, neither closes nor opens: a probe's slot is freed.
        let answered = failed || Self.isAnswer(outcome)
        let now = ContinuousClock.now
        return circuits.withLock { circuits -> CircuitBreaker.StateChange? in
            if circuits[origin] == nil, circuits.count >= Self.maximumOrigins {
                circuits = circuits.filter { if case .closed = $0.value.phase { false } else { true } }
            }
            var circuit = circuits[origin] ?? Circuit()
            defer { circuits[origin] = circuit }
            switch (circuit.phase, admission) {
            case (.closed(let failures), _):
                guard answered else { return nil }
                guard failed else {
                    circuit.phase = .closed(failures: 0)
                    return nil
                }
                guard failures + 1 >= breaker.threshold else {
                    circuit.phase = .closed(failures: failures + 1)
                    return nil
                }
                return open(&circuit, after: outcome, now: now, from: .closed, origin: origin, breaker: breaker,
                            why: "\(failures + 1) failure(s) in a row, the last \(Call.cause(of: outcome))")
            case (.halfOpen(let inFlight), .probe):
                guard answered else {
                    circuit.phase = .halfOpen(inFlight: max(inFlight - 1, 0))
                    return nil
                }
                if failed {
                    return open(&circuit, after: outcome, now: now, from: .halfOpen, origin: origin, breaker: breaker,
                                why: "a probe failed (\(Call.cause(of: outcome)))")
                }
                circuit.phase = .closed(failures: 0)
                return .init(origin: origin.description, from: .halfOpen, to: .closed, reason: "a probe succeeded")
            default:
                // A request let through before the circuit opened, ending late: the circuit's
                // own probes decide.
                return nil
            }
        }
    }

    private func open(_ circuit: inout Circuit, after outcome: RequestOutcome, now: ContinuousClock.Instant,
                      from: CircuitBreaker.State, origin: Origin, breaker: CircuitBreaker, why: String) -> CircuitBreaker.StateChange {
        let time = breaker.openTime(after: outcome)
        let date = Date().addingTimeInterval(time.seconds)
        circuit.phase = .open(until: now.advanced(by: time), date: date)
        let extended = time > breaker.openTime ? " (the server's Retry-After)" : ""
        return .init(origin: origin.description, from: from, to: .open(until: date),
                     reason: "\(why); open for \(time.seconds.compactText) s\(extended)")
    }

    private static func isAnswer(_ outcome: RequestOutcome) -> Bool {
        if case .response = outcome { return true }
        return false
    }

    func state(of origin: Origin) -> CircuitBreaker.State {
        circuits.withLock { $0[origin]?.state ?? .closed }
    }
}

/// The last answer times of one origin, oldest overwritten first. A percentile is sorted out
/// again only after ``refresh`` new samples: every hedged request reads it, under the lock.
struct LatencySamples {
    private var samples: [Duration] = []
    private var next = 0
    private var cached: (percentile: Double, value: Duration, added: Int)?
    static let refresh = 16

    mutating func add(_ sample: Duration) {
        if samples.count < HedgeDelay.sampleCapacity {
            samples.append(sample)
        } else {
            samples[next] = sample
            next = (next + 1) % HedgeDelay.sampleCapacity
        }
        cached?.added += 1
    }

    /// The `percentile` (clamped to 0 … 100) of the samples; `nil` with fewer than the minimum.
    mutating func percentile(_ percentile: Double) -> Duration? {
        guard samples.count >= HedgeDelay.minimumSamples else { return nil }
        if let cached, cached.percentile == percentile, cached.added < Self.refresh { return cached.value }
        let sorted = samples.sorted()
        let fraction = percentile.isNaN ? 1 : min(max(percentile, 0), 100) / 100
        let value = sorted[min(Int((Double(sorted.count - 1) * fraction).rounded(.down)), sorted.count - 1)]
        cached = (percentile, value, 0)
        return value
    }
}
