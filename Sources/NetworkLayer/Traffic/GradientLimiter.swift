import Foundation

/// An adaptive limit, a gradient limiter after Netflix's concurrency-limits: the origin's latency
/// without load over the latest latency says whether requests queue at the origin.
///
/// For each answered request: `gradient = clamp(tolerance × noLoadLatency / latest, 0.5, 1)`, then
/// `limit ← limit × (1 − smoothing) + (limit × gradient + √limit) × smoothing`, within the bounds.
/// ``noLoadLatency`` is the lowest latency seen, let rise by `drift` per sample so that an origin that
/// became slower for good is learnt, slowly: a lasting overload must not pass for the usual.
/// What must stay true: the limit never leaves `minimum…maximum`; it falls by at most half per
/// sample (an outlier cannot shed everything), so that under the worst latency it settles at 4
/// (`limit / 2 = √limit`) or the minimum; it does not grow while fewer than half of it are in
/// flight (an idle client learns nothing about the origin's capacity).
struct GradientLimiter: Sendable, Equatable {
    let minimum: Double
    let maximum: Double
    private(set) var estimate: Double
    /// In seconds; `.infinity` until the first sample.
    private(set) var noLoadLatency = Double.infinity

    static let tolerance = 2.0
    static let smoothing = 0.2
    static let drift = 0.0001

    init(minimum: Int, maximum: Int, initial: Int) {
        // Bounded where a Double still holds every whole number, so that `limit` converts back.
        self.minimum = min(Double(max(1, minimum)), Self.ceiling)
        self.maximum = min(Double(max(max(1, minimum), maximum)), Self.ceiling)
        estimate = min(self.maximum, max(self.minimum, Double(initial)))
    }

    /// 2⁵²: a caller's `Int.max` as Double is 2⁶³, which no `Int` holds.
    static let ceiling = 4_503_599_627_370_496.0

    /// The limit as a count of requests.
    var limit: Int { Int(estimate) }

    /// Takes in one request's latency, `inFlight` counting it, and returns the new limit.
    @discardableResult
    mutating func sample(latency: Duration, inFlight: Int) -> Int {
        let latest = max(latency.seconds, 1e-6)
        noLoadLatency = min(latest, noLoadLatency * (1 + Self.drift))
        let gradient = max(0.5, min(1, Self.tolerance * noLoadLatency / latest))
        let target = estimate * gradient + estimate.squareRoot()
        var next = estimate * (1 - Self.smoothing) + target * Self.smoothing
        if Double(inFlight) < estimate / 2 { next = min(next, estimate) }
        estimate = min(maximum, max(minimum, next))
        return limit
    }
}
