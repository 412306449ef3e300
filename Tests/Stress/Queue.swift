// The per-origin limit's runs (issue 53): `queue` (a limit under 10,000 requests, half cancelled
// while queued) and `adaptive` (a healthy origin's latency while another is slow).

import Foundation
import NetworkLayer

struct LimitedProvider: ServiceProvider {
    let port: Int?
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }
}

final class Hold: BaseRequest<Data> {
    init(_ port: Int, _ endpoint: String, timeout: TimeInterval = 120) {
        super.init(serviceProvider: LimitedProvider(port: port), endpoint: endpoint)
        requestTimeout = .seconds(timeout)
    }
}

/// Tests/Servers/concurrency_server.py, which counts requests in flight.
func concurrencyServer() throws -> LoopbackServer {
    try LoopbackServer(script: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Servers/concurrency_server.py").path)
}

func serverPeak(_ manager: NetworkManager, _ port: Int) async -> Int {
    manager.isVerbose = false
    let data = try? await manager.perform(Hold(port, "/stats"))
    return (data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }?["peak"] as? Int) ?? -1
}

/// `requests` requests, `outstanding` at a time, under a limit of `limit`, every other one
/// cancelled after 0–50 ms (mostly while it waits in the queue). Each completes exactly once, a
/// cancelled one within 100 ms; the server never sees more than the limit, plus the requests
/// cancelled on the wire (their place is free at once, their server may still be at work);
/// descriptors and threads come back.
func queueRun(requests: Int, limit: Int, outstanding: Int) async -> [String: any Sendable] {
    guard let server = try? concurrencyServer() else { return ["mode": "queue", "ok": false] }
    defer { server.stop() }
    let manager = NetworkManager()
    manager.isVerbose = false
    _ = try? await manager.perform(Hold(server.port, "/hold?ms=1"))
    manager.closeIdleConnections()
    try? await Task.sleep(for: .milliseconds(200))
    let baselineFDs = openFileDescriptors()
    let baselineThreads = threadCount()
    _ = try? await manager.perform(Hold(server.port, "/stats/reset"))
    manager.maximumRequestsPerOrigin = .fixed(limit)
    let ledger = Ledger(count: requests)
    let cancelledOnTheWire = Protected(0)
    let slots = AsyncSemaphore(outstanding)
    let started = ContinuousClock.now
    await withTaskGroup(of: Void.self) { group in
        for id in 0..<requests {
            await slots.wait()
            group.addTask {
                defer { slots.signal() }
                let task = Task { try await manager.perform(Hold(server.port, "/hold?ms=10")) }
                var cancelledAt: ContinuousClock.Instant?
                if id.isMultiple(of: 2) {
                    try? await Task.sleep(for: .milliseconds(Int.random(in: 0...50)))
                    cancelledAt = .now
                    task.cancel()
                }
                let result: Result<Data, NetworkError>
                do { result = .success(try await task.value) } catch let error as NetworkError { result = .failure(error) } catch {
                    result = .failure(.generic(code: nil))
                }
                ledger.record(id, result, cancelLatency: cancelledAt.map { $0.duration(to: .now) })
                if case .failure(.cancelled(let context)) = result, context.reason?.contains("waited for a place") != true {
                    cancelledOnTheWire.withLock { $0 += 1 }
                }
            }
        }
    }
    let elapsed = started.duration(to: .now)
    manager.maximumRequestsPerOrigin = nil
    let peak = await serverPeak(manager, server.port)
    manager.closeIdleConnections()
    await settle(.seconds(15)) { openFileDescriptors() <= baselineFDs && threadCount() <= baselineThreads }
    let s = ledger.summary
    let onTheWire = cancelledOnTheWire.withLock { $0 }
    let ok = s.completedOnce == requests && s.completedTwice == 0 && s.failed == 0 && peak >= 1 && peak <= limit + onTheWire
        && percentile(s.latencies, 0.99) < 100 && openFileDescriptors() <= baselineFDs && threadCount() <= baselineThreads
    return ["mode": "queue", "requests": requests, "limit": limit, "outstanding": outstanding, "peakInFlight": peak,
            "cancelledWhileQueued": s.cancelled - onTheWire, "cancelledOnTheWire": onTheWire, "completedExactlyOnce": s.completedOnce,
            "succeeded": s.succeeded, "cancelled": s.cancelled, "otherErrors": s.failed,
            "cancelLatencyMsP50": percentile(s.latencies, 0.5), "cancelLatencyMsP99": percentile(s.latencies, 0.99),
            "cancelLatencyMsMax": percentile(s.latencies, 1), "seconds": elapsed.secondsValue,
            "fdsBefore": baselineFDs, "fdsAfter": openFileDescriptors(), "threadsBefore": baselineThreads,
            "threadsAfter": threadCount(), "peakRSSMB": peakResidentMegabytes(), "ok": ok]
}

/// A healthy origin's latency (`/hold?ms=5`, 4 callers) while 64 callers load a slow one whose
/// latency grows with what it has in flight (`/load?ms=10`), under libcurl's limit of 32
/// connections in all: without a limit the slow origin takes every connection; with `.adaptive`
/// its limit stays where its latency stops improving. Reported, not judged: the run fails only if
/// a request fails.
func adaptiveRun(seconds: Double) async -> [String: any Sendable] {
    guard let slow = try? concurrencyServer(), let healthy = try? concurrencyServer() else { return ["mode": "adaptive", "ok": false] }
    defer { slow.stop(); healthy.stop() }
    var summary: [String: any Sendable] = ["mode": "adaptive", "seconds": seconds]
    var failures = 0
    Net.connectionLimits = ConnectionLimits(total: 32)
    defer { Net.connectionLimits = .unlimited }
    for (name, limit) in [("unlimited", nil), ("adaptive", OriginLimit.adaptive(minimum: 1, maximum: 64, initial: 4))] as [(String, OriginLimit?)] {
        let manager = NetworkManager()
        manager.isVerbose = false
        manager.maximumRequestsPerOrigin = limit
        let deadline = ContinuousClock.now + .seconds(seconds)
        let latencies = Protected<[Duration]>([])
        let slowDone = Protected(0)
        let failed = Protected(0)
        _ = try? await manager.perform(Hold(slow.port, "/stats/reset"))
        await withTaskGroup(of: Void.self) { group in
            for caller in 0..<68 {
                group.addTask {
                    let isHealthy = caller < 4
                    while ContinuousClock.now < deadline {
                        let sent = ContinuousClock.now
                        do {
                            _ = try await manager.perform(Hold(isHealthy ? healthy.port : slow.port, isHealthy ? "/hold?ms=5" : "/load?ms=10"))
                            if isHealthy { latencies.withLock { $0.append(sent.duration(to: .now)) } } else { slowDone.withLock { $0 += 1 } }
                        } catch {
                            failed.withLock { $0 += 1 }
                        }
                    }
                }
            }
        }
        let sorted = latencies.withLock { $0.sorted() }
        summary["\(name)HealthyP50Ms"] = percentile(sorted, 0.5)
        summary["\(name)HealthyP99Ms"] = percentile(sorted, 0.99)
        summary["\(name)HealthyRequests"] = sorted.count
        summary["\(name)SlowRequests"] = slowDone.withLock { $0 }
        summary["\(name)SlowPeakInFlight"] = await serverPeak(NetworkManager(), slow.port)
        if limit != nil { summary["adaptiveFinalLimit"] = manager.trafficState(for: LimitedProvider(port: slow.port))?.limit ?? -1 }
        failures += failed.withLock { $0 }
    }
    summary["failed"] = failures
    summary["ok"] = failures == 0
    return summary
}

extension Duration {
    var secondsValue: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
