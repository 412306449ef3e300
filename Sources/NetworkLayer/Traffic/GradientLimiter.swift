import Foundation

/// An adaptive limit, Netflix's Gradient2: the long-run latency over the latest one says whether
/// requests queue at the origin.
///
/// For each answered request: `gradient = clamp(tolerance × long / latest, 0.5, 1)`, then
/// `limit ← limit × (1 − smoothing) + (limit × gradient + √limit) × smoothing`, within the bounds.
/// What must stay true: the limit never leaves `minimum…maximum`; it falls by at most half per
/// sample (an outlier cannot shed everything), so that under the worst latency it settles at 4
/// (`limit / 2 = √limit`) or the minimum; it does not grow while fewer than half of it are
/// in flight (an idle client learns nothing about the origin's capacity); a latest latency far
/// below the long-run one pulls the long-run average down, so that a recovered origin regains
/// its limit.
struct GradientLimiter: Sendable, Equatable {
    let minimum: Double
    let maximum: Double
    private(set) var estimate: Double
    /// Exponential average of the latency in seconds, a plain mean over the first `warmup` samples.
    private(set) var longLatency = 0.0
    private var samples = 0

    static let tolerance = 1.5
    static let smoothing = 0.2
    static let window = 100.0
    static let warmup = 10

    init(minimum: Int, maximum: Int, initial: Int) {
        self.minimum = Double(max(1, minimum))
        self.maximum = Double(max(max(1, minimum), maximum))
        estimate = min(self.maximum, max(self.minimum, Double(initial)))
    }

    /// The limit as a count of requests.
    var limit: Int { Int(estimate) }

    /// Takes in one request's latency, `inFlight` counting it, and returns the new limit.
    @discardableResult
    mutating func sample(latency: Duration, inFlight: Int) -> Int {
        let latest = max(latency.seconds, 1e-6)
        samples += 1
        if samples <= Self.warmup {
            longLatency += (latest - longLatency) / Double(samples)
        } else {
            longLatency += (latest - longLatency) * 2 / (Self.window + 1)
        }
        if longLatency / latest > 2 { longLatency *= 0.95 }
        let gradient = max(0.5, min(1, Self.tolerance * longLatency / latest))
        let target = estimate * gradient + estimate.squareRoot()
        var next = estimate * (1 - Self.smoothing) + target * Self.smoothing
        if Double(inFlight) < estimate / 2 { next = min(next, estimate) }
        estimate = min(maximum, max(minimum, next))
        return limit
    }
}
