import Foundation
import NetworkLayer

// `breaker` and `hedge`: the circuit breaker and hedged reads against Tests/Servers/outage_server.py.

struct OutageProvider: ServiceProvider {
    let port: Int?
    var circuitBreaker: CircuitBreaker?
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }
}

func trafficServer() throws -> LoopbackServer {
    try LoopbackServer(script: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Servers/outage_server.py").path)
}

func get(_ manager: NetworkManager, _ provider: OutageProvider, _ endpoint: String, hedging: Hedging? = nil,
         timeout: TimeInterval = 10) async -> Result<Data, NetworkError> {
    let request = BaseRequest<Data>(serviceProvider: provider, endpoint: endpoint)
    request.requestTimeout = .seconds(timeout)
    request.hedging = hedging
    do throws(NetworkError) {
        return .success(try await manager.perform(request))
    } catch {
        return .failure(error)
    }
}

func serverRequests(_ port: Int) async -> Int {
    let control = NetworkManager()
    control.isVerbose = false
    guard case .success(let data) = await get(control, OutageProvider(port: port), "/stats"),
          let stats = try? JSONSerialization.jsonObject(with: data) as? [String: Int] else { return -1 }
    return stats["requests"] ?? -1
}

func setMode(_ port: Int, _ query: String) async {
    let control = NetworkManager()
    control.isVerbose = false
    _ = await get(control, OutageProvider(port: port), "/control?\(query)")
}

/// A server that turns slow, then fails, then recovers. During the outage `requests` calls, 100
/// at a time: each fails with `circuitOpen` (but the probes), and the server sees only the probes.
func breakerRun(requests: Int) async -> [String: any Sendable] {
    guard let server = try? trafficServer() else { return ["mode": "breaker", "ok": false, "error": "no server"] }
    defer { server.stop() }
    let probes = Protected(0)
    let openFor = Duration.milliseconds(250)
    let breaker = CircuitBreaker(failureThreshold: 5, openFor: openFor, halfOpenProbes: 1, onStateChange: { change in
        if change.to == .halfOpen { probes.withLock { $0 += 1 } }
    })
    let provider = OutageProvider(port: server.port, circuitBreaker: breaker)
    let manager = NetworkManager()
    manager.isVerbose = false
    await setMode(server.port, "mode=slow&delay=0.05")
    for _ in 0..<20 { _ = await get(manager, provider, "/work") }
    await setMode(server.port, "mode=fail")
    var opening = 0
    while case .closed = manager.circuitState(for: provider), opening < 100 {
        _ = await get(manager, provider, "/work")
        opening += 1
    }
    let before = await serverRequests(server.port)
    let latencies = Protected<[Duration]>([])
    let others = Protected(0)
    let started = ContinuousClock.now
    let perTask = requests / 100
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<100 {
            group.addTask {
                for _ in 0..<perTask {
                    let start = ContinuousClock.now
                    let result = await get(manager, provider, "/work")
                    let took = start.duration(to: .now)
                    if case .failure(.circuitOpen) = result { latencies.withLock { $0.append(took) } } else { others.withLock { $0 += 1 } }
                }
            }
        }
    }
    let outage = started.duration(to: .now)
    let during = await serverRequests(server.port) - before
    await setMode(server.port, "mode=ok")
    let recovering = ContinuousClock.now
    var recovered = false
    while !recovered, recovering.duration(to: .now) < .seconds(10) {
        if case .success = await get(manager, provider, "/work") { recovered = true } else { try? await Task.sleep(for: .milliseconds(20)) }
    }
    let sorted = latencies.withLock { $0 }.sorted()
    let probesLetThrough = probes.withLock { $0 }
    let ok = during <= probesLetThrough && others.withLock { $0 } <= probesLetThrough && recovered
        && manager.circuitState(for: provider) == .closed && percentile(sorted, 0.5) < 1
    return ["mode": "breaker", "requests": requests, "openedAfter": opening, "failedFast": sorted.count,
            "serverSawDuringOutage": during, "probes": probesLetThrough, "outageMs": milliseconds(outage),
            "failMsP50": percentile(sorted, 0.5), "failMsP99": percentile(sorted, 0.99), "failMsMax": percentile(sorted, 1),
            "recovered": recovered, "recoveryMs": milliseconds(recovering.duration(to: .now)), "ok": ok]
}

/// p50 and p99 of `requests` GETs, 20 at a time, against a server whose every 20th answer
/// (5 %) takes 1 s: without hedging, then with `.after(.percentile(95))`.
func hedgeRun(requests: Int) async -> [String: any Sendable] {
    guard let server = try? trafficServer() else { return ["mode": "hedge", "ok": false, "error": "no server"] }
    defer { server.stop() }
    let provider = OutageProvider(port: server.port)
    func run(_ hedging: Hedging?) async -> [Duration] {
        let manager = NetworkManager()
        manager.isVerbose = false
        let latencies = Protected<[Duration]>([])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    for _ in 0..<(requests / 20) {
                        let start = ContinuousClock.now
                        _ = await get(manager, provider, "/hedge?every=20&delay=1", hedging: hedging)
                        let took = start.duration(to: .now)
                        latencies.withLock { $0.append(took) }
                    }
                }
            }
        }
        return latencies.withLock { $0 }.sorted()
    }
    let plain = await run(nil)
    let before = await serverRequests(server.port)
    let hedged = await run(.after(.percentile(95)))
    let sent = await serverRequests(server.port) - before
    let ok = percentile(hedged, 0.99) < 200
    return ["mode": "hedge", "requests": requests, "plainMsP50": percentile(plain, 0.5), "plainMsP99": percentile(plain, 0.99),
            "hedgedMsP50": percentile(hedged, 0.5), "hedgedMsP99": percentile(hedged, 0.99), "hedgedMsMax": percentile(hedged, 1),
            "hedgedServerRequests": sent, "ok": ok]
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}
