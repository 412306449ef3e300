import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The adaptive limit's arithmetic, on made-up latencies: no server, no clock.
@Suite("Gradient limiter", .sharing)
struct GradientLimiterTests {
    @Test("Bounds of Int.max, and a latency of zero or of years, give a whole limit instead of a trap")
    func extremeBoundsDoNotTrap() {
        var limiter = GradientLimiter(minimum: .max, maximum: .max, initial: .max)
        #expect(limiter.limit > 1_000_000)
        limiter.sample(latency: .zero, inFlight: .max)
        limiter.sample(latency: .seconds(Int64.max), inFlight: 0)
        #expect(limiter.limit > 1_000_000)
        var wide = GradientLimiter(minimum: 1, maximum: .max, initial: .max)
        for _ in 0..<50 { wide.sample(latency: .seconds(60), inFlight: wide.limit) }
        #expect(wide.limit >= 1)
    }

    @Test("A steady latency with the limit in use raises the limit to its maximum, never past it")
    func steadyRisesToMaximum() {
        var limiter = GradientLimiter(minimum: 1, maximum: 50, initial: 10)
        for _ in 0..<500 { limiter.sample(latency: .milliseconds(20), inFlight: limiter.limit) }
        #expect(limiter.limit == 50)
    }

    @Test("A latency that rises to many times the usual lowers the limit, at worst to 4 or its minimum")
    func risingLatencyLowersLimit() {
        var limiter = GradientLimiter(minimum: 2, maximum: 100, initial: 40)
        for _ in 0..<50 { limiter.sample(latency: .milliseconds(20), inFlight: 40) }
        let before = limiter.limit
        var previous = before
        for step in 1...30 {
            let limit = limiter.sample(latency: .milliseconds(20 * (step + 2)), inFlight: limiter.limit)
            #expect(limit <= previous, "step \(step): \(limit) after \(previous)")
            previous = limit
        }
        #expect(previous < before / 2, "\(previous) from \(before)")
        // Latency that keeps climbing: the limit ends where half of it is its queue allowance
        // (limit / 2 = √limit, 4), never below its minimum.
        var latency = 1.0
        for _ in 0..<60 {
            latency *= 1.6
            limiter.sample(latency: .seconds(latency), inFlight: 100)
        }
        #expect(limiter.limit == 4)
        var bounded = GradientLimiter(minimum: 6, maximum: 100, initial: 40)
        for step in 1...60 { bounded.sample(latency: .seconds(pow(1.6, Double(step))), inFlight: 100) }
        #expect(bounded.limit == 6)
    }

    @Test("A higher latency that lasts keeps the limit down for thousands of samples, then is learnt as the origin's own")
    func lastingLatencyIsLearntSlowly() {
        var limiter = GradientLimiter(minimum: 1, maximum: 100, initial: 40)
        for _ in 0..<50 { limiter.sample(latency: .milliseconds(20), inFlight: 40) }
        for _ in 0..<2_000 { limiter.sample(latency: .milliseconds(200), inFlight: 40) }
        let held = limiter.limit
        #expect(held == 4)
        for _ in 0..<30_000 { limiter.sample(latency: .milliseconds(200), inFlight: limiter.limit) }
        #expect(limiter.limit == 100, "\(limiter.limit) once the origin's slower latency is its usual")
    }

    @Test("One sample lowers the limit by at most half")
    func oneOutlierHalvesAtMost() {
        var limiter = GradientLimiter(minimum: 1, maximum: 100, initial: 40)
        for _ in 0..<20 { limiter.sample(latency: .milliseconds(10), inFlight: 40) }
        let before = limiter.estimate
        limiter.sample(latency: .seconds(60), inFlight: 40)
        #expect(limiter.estimate >= before / 2)
    }

    @Test("Fewer in flight than half the limit never raises it")
    func idleDoesNotGrow() {
        var limiter = GradientLimiter(minimum: 1, maximum: 100, initial: 20)
        for _ in 0..<200 { limiter.sample(latency: .milliseconds(20), inFlight: 3) }
        #expect(limiter.limit == 20)
    }

    @Test("After an overload the limit recovers once the latency is back to the usual")
    func recovers() {
        var limiter = GradientLimiter(minimum: 1, maximum: 60, initial: 30)
        for _ in 0..<50 { limiter.sample(latency: .milliseconds(20), inFlight: 30) }
        for _ in 0..<50 { limiter.sample(latency: .milliseconds(400), inFlight: 30) }
        let low = limiter.limit
        for _ in 0..<400 { limiter.sample(latency: .milliseconds(20), inFlight: limiter.limit) }
        #expect(low < 30)
        #expect(limiter.limit == 60, "\(limiter.limit) after recovering from \(low)")
    }

    @Test("Bounds hold whatever the start: an initial value outside them is brought inside, a minimum below 1 is 1")
    func boundsHold() {
        #expect(GradientLimiter(minimum: 5, maximum: 10, initial: 100).limit == 10)
        #expect(GradientLimiter(minimum: 5, maximum: 10, initial: 0).limit == 5)
        var odd = GradientLimiter(minimum: 0, maximum: 0, initial: -3)
        odd.sample(latency: .zero, inFlight: 0)
        #expect(odd.limit == 1)
    }
}
