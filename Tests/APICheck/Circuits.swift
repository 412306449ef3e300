// Issue 53's block (the circuit breaker and hedged reads): every public spelling, as users write it.

import Foundation
import NetworkLayer

struct GuardedBackend: ServiceProvider {
    var host: String { "api.example" }
    var httpScheme: HTTPScheme { .https }
    var circuitBreaker: CircuitBreaker? {
        CircuitBreaker(failureThreshold: 5, openFor: .seconds(30), halfOpenProbes: 2,
                       isFailure: { outcome in
                           if case .response(let response) = outcome { return response.statusCode == 429 }
                           return CircuitBreaker.isDefaultFailure(outcome)
                       },
                       onStateChange: { change in print(change.origin, change.from, change.to, change.reason) })
    }
}

func checkCircuitAPI() async {
    var breaker = CircuitBreaker()
    breaker.failureThreshold = 3
    breaker.openFor = .seconds(10)
    breaker.halfOpenProbes = 1
    breaker.isFailure = CircuitBreaker.isDefaultFailure
    breaker.onStateChange = nil
    let ceiling: Duration = CircuitBreaker.retryAfterCeiling
    print(breaker.failureThreshold, ceiling)

    switch Net.circuitState(for: GuardedBackend()) {
    case .closed: print("closed")
    case .open(let until): print("open until", until)
    case .halfOpen: print("half-open")
    }
    print(CircuitBreaker.State.closed == .halfOpen, CircuitBreaker.State.open(until: Date()).description)

    let request = BaseRequest<Data>(serviceProvider: GuardedBackend(), endpoint: "/items")
    request.hedging = .after(.percentile(95), maximumExtra: 1)
    request.hedging = .after(.duration(.milliseconds(200)))
    var hedging = Hedging.after(.percentile(99))
    hedging.delay = .percentile(90)
    hedging.maximumExtra = 2
    print(hedging == request.hedging, HedgeDelay.minimumSamples, HedgeDelay.sampleCapacity)

    do {
        _ = try await Net.perform(request)
    } catch .circuitOpen(let context) {
        print("circuit open until", context.circuitOpenUntil ?? Date())
    } catch {
        print(error.code, NetworkError.circuitOpen.code)
    }
}
