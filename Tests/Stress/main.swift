// NetworkLayerStress: the long part of the reliability suite (`make stress`).
//
//   NetworkLayerStress soak [--requests 10000] [--in-flight 500] [--cancel-ratio 0.1]
//   NetworkLayerStress cancel [--requests 10000]
//   NetworkLayerStress queue [--requests 10000] [--limit 8] [--in-flight 500]
//   NetworkLayerStress adaptive [--seconds 10]
//   NetworkLayerStress breaker [--requests 10000]   (Tests/Servers/outage_server.py: slow, failing, recovered)
//   NetworkLayerStress hedge [--requests 2000]      (the same server, 5 % of answers taking 1 s)
//   NetworkLayerStress leak [--requests 1000] [--port N]   (run under valgrind by make stress,
//                                                           with a server it started: --port)
//
// Each mode starts Tests/Servers/test_server.py on a free loopback port, runs, checks its
// invariants, prints one JSON summary line and exits 0 only if every invariant held.

import Foundation
import NetworkLayer

// MARK: - A loopback server (the test server, started as the tests start it)

final class LoopbackServer: @unchecked Sendable {  // immutable after init; stop() is idempotent
    let port: Int
    private let process: Process?
    private let stdin: Pipe?

    /// A server someone else started (under valgrind, Foundation's Process cannot spawn).
    init(runningOn port: Int) {
        self.port = port
        process = nil
        stdin = nil
    }

    init(script: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        self.stdin = stdin
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            throw NSError(domain: "stress", code: 1, userInfo: [NSLocalizedDescriptionKey: "server did not start: \(text)"])
        }
        self.port = port
    }

    func stop() {
        guard let process, let stdin else { return }
        try? stdin.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

struct LocalProvider: ServiceProvider {
    let port: Int?  // `Int?`, as the protocol declares it: a plain `Int` would not be the witness
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }
}

final class Fetch: BaseRequest<Data> {
    init(_ port: Int, _ endpoint: String, timeout: TimeInterval = 5) {
        super.init(serviceProvider: LocalProvider(port: port), endpoint: endpoint)
        requestTimeout = .seconds(timeout)
    }
}

// MARK: - Process resources

func openFileDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
}

func peakResidentMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return -1 }
    return kilobytes / 1024
}

/// Waits until `condition` holds or `limit` passes.
func settle(_ limit: Duration = .seconds(5), until condition: () -> Bool) async {
    let deadline = ContinuousClock.now + limit
    while !condition(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
}

// MARK: - Modes

/// What the faults and ordinary endpoints of the soak are.
let soakEndpoints = ["/echo", "/json", "/bytes/20000", "/delay/0.05", "/status/500", "/status/404",
                     "/close", "/reset", "/partial", "/garbage", "/malformed-json", "/slow-bytes/200000?chunk=20000&interval=0.01"]

/// Counts every completion per request id; more than one is a failure.
final class Ledger: Sendable {
    private let state = Protected<(calls: [Int], cancelled: Int, succeeded: Int, failed: Int, latencies: [Duration])>(([], 0, 0, 0, []))
    init(count: Int) { state.withLock { $0.calls = Array(repeating: 0, count: count) } }

    func record(_ id: Int, _ result: Result<Data, NetworkError>, cancelLatency: Duration? = nil) {
        state.withLock { state in
            state.calls[id] += 1
            switch result {
            case .success: state.succeeded += 1
            case .failure(.cancelled): state.cancelled += 1
            case .failure(let error):
                state.failed += 1
                if state.failed <= 3, ProcessInfo.processInfo.environment["STRESS_DEBUG"] != nil { print("failure:", error.errorDescription ?? "") }
            }
            if let cancelLatency { state.latencies.append(cancelLatency) }
        }
    }

    var summary: (completedOnce: Int, completedTwice: Int, missing: Int, succeeded: Int, failed: Int, cancelled: Int, latencies: [Duration]) {
        state.withLock { s in
            (s.calls.filter { $0 == 1 }.count, s.calls.filter { $0 > 1 }.count, s.calls.filter { $0 == 0 }.count,
             s.succeeded, s.failed, s.cancelled, s.latencies.sorted())
        }
    }
}

func percentile(_ sorted: [Duration], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let value = sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
    return Double(value.components.seconds) * 1000 + Double(value.components.attoseconds) / 1e15
}

func soak(server: LoopbackServer, requests: Int, inFlight: Int, cancelRatio: Double) async -> [String: any Sendable] {
    let ledger = Ledger(count: requests)
    let slots = AsyncSemaphore(inFlight)
    // The baseline includes the engine's own thread and wake-up descriptors, and libdispatch's
    // timer thread (the cancels below use asyncAfter): start them first.
    _ = try? await Net.perform(Fetch(server.port, "/echo"))
    await withCheckedContinuation { done in DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) { done.resume() } }
    Net.closeIdleConnections()
    try? await Task.sleep(for: .milliseconds(200))
    let baselineFDs = openFileDescriptors()
    let baselineThreads = threadCount()
    let started = ContinuousClock.now
    await withTaskGroup(of: Void.self) { group in
        for id in 0..<requests {
            await slots.wait()
            let endpoint = soakEndpoints[id % soakEndpoints.count]
            let cancel = Double.random(in: 0..<1) < cancelRatio
            group.addTask {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    let handle = Net.performRequest(request: Fetch(server.port, endpoint)) { result in
                        ledger.record(id, result)
                        done.resume()
                    }
                    if cancel {
                        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 0...30))) { handle.cancel() }
                    }
                }
                slots.signal()
            }
        }
    }
    let elapsed = ContinuousClock.now - started
    Net.closeIdleConnections()
    // Descriptors close at once; idle Dispatch worker threads retire after a few seconds.
    await settle(.seconds(15)) { openFileDescriptors() <= baselineFDs && threadCount() <= baselineThreads }
    let s = ledger.summary
    let ok = s.completedOnce == requests && s.completedTwice == 0 && s.missing == 0
        && openFileDescriptors() <= baselineFDs && threadCount() <= baselineThreads
    return ["mode": "soak", "requests": requests, "inFlight": inFlight, "completedExactlyOnce": s.completedOnce,
            "completedTwice": s.completedTwice, "neverCompleted": s.missing, "succeeded": s.succeeded, "failed": s.failed,
            "cancelled": s.cancelled, "seconds": Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            "fdsBefore": baselineFDs, "fdsAfter": openFileDescriptors(), "threadsBefore": baselineThreads,
            "threadsAfter": threadCount(), "peakRSSMB": peakResidentMegabytes(), "ok": ok]
}

func cancellations(server: LoopbackServer, requests: Int) async -> [String: any Sendable] {
    let ledger = Ledger(count: requests)
    let slots = AsyncSemaphore(200)
    let endpoints = ["/delay/1", "/slow-bytes/2000000?chunk=10000&interval=0.01", "/echo"]
    await withTaskGroup(of: Void.self) { group in
        for id in 0..<requests {
            await slots.wait()
            let endpoint = endpoints[id % endpoints.count]
            group.addTask {
                // Cancel before start, right after start, or a little later (connect, mid-body).
                let delay = [0, 0, 2, 10, 40][id % 5]
                let task = Task { try await Net.perform(Fetch(server.port, endpoint)) }
                if delay > 0 { try? await Task.sleep(for: .milliseconds(delay)) }
                let cancelledAt = ContinuousClock.now
                task.cancel()
                let result: Result<Data, NetworkError>
                do { result = .success(try await task.value) } catch let error as NetworkError { result = .failure(error) } catch {
                    result = .failure(.generic(code: nil))
                }
                ledger.record(id, result, cancelLatency: ContinuousClock.now - cancelledAt)
                slots.signal()
            }
        }
    }
    let s = ledger.summary
    // The promise: `.cancelled` within 100 ms of the cancel, every time.
    let ok = s.completedOnce == requests && s.completedTwice == 0 && s.failed == 0 && percentile(s.latencies, 1) < 100
    return ["mode": "cancel", "requests": requests, "cancelled": s.cancelled, "finishedBeforeCancel": s.succeeded,
            "otherErrors": s.failed, "completedExactlyOnce": s.completedOnce,
            "cancelLatencyMsP50": percentile(s.latencies, 0.5), "cancelLatencyMsP99": percentile(s.latencies, 0.99),
            "cancelLatencyMsMax": percentile(s.latencies, 1), "peakRSSMB": peakResidentMegabytes(), "ok": ok]
}

func leakRun(server: LoopbackServer, requests: Int) async -> [String: any Sendable] {
    var succeeded = 0
    for index in 0..<requests {
        if (try? await Net.perform(Fetch(server.port, index % 10 == 0 ? "/status/500" : "/bytes/2000"))) != nil { succeeded += 1 }
    }
    Net.closeIdleConnections()
    try? await Task.sleep(for: .milliseconds(300))
    return ["mode": "leak", "requests": requests, "succeeded": succeeded, "ok": succeeded == requests - requests / 10]
}

/// Identical GETs coalesced (issue 33): `requests` calls in rounds of 100 identical GETs each (a
/// query of its own per round), every other one cancelled while it waits. Each call completes
/// exactly once, a cancelled one within 100 ms, the others with the body; each round shares one
/// transfer (or a new one after all its callers cancelled); descriptors and threads come back.
func coalesce(server: LoopbackServer, requests: Int) async -> [String: any Sendable] {
    let ledger = Ledger(count: requests)
    let manager = NetworkManager()
    manager.isVerbose = false
    manager.middlewares = [RequestCoalescing()]
    _ = try? await manager.perform(Fetch(server.port, "/echo"))
    Net.closeIdleConnections()
    try? await Task.sleep(for: .milliseconds(200))
    let baselineFDs = openFileDescriptors()
    let baselineThreads = threadCount()
    let countBefore = (try? await Net.perform(Fetch(server.port, "/count"))).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Int] }?["count"] ?? 0
    let roundSize = 100
    for round in 0..<(requests / roundSize) {
        await withTaskGroup(of: Void.self) { group in
            for member in 0..<roundSize {
                let id = round * roundSize + member
                group.addTask {
                    let task = Task { try await manager.perform(Fetch(server.port, "/delay/0.05?round=\(round)")) }
                    var cancelledAt: ContinuousClock.Instant?
                    if member.isMultiple(of: 2) {
                        try? await Task.sleep(for: .milliseconds(Int.random(in: 0...40)))
                        cancelledAt = .now
                        task.cancel()
                    }
                    let result: Result<Data, NetworkError>
                    do { result = .success(try await task.value) } catch let error as NetworkError { result = .failure(error) } catch {
                        result = .failure(.generic(code: nil))
                    }
                    ledger.record(id, result, cancelLatency: cancelledAt.map { $0.duration(to: .now) })
                }
            }
        }
    }
    let countAfter = (try? await Net.perform(Fetch(server.port, "/count"))).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Int] }?["count"] ?? 0
    let transfers = countAfter - countBefore  // /count does not count itself
    manager.closeIdleConnections()
    Net.closeIdleConnections()
    await settle(.seconds(15)) { openFileDescriptors() <= baselineFDs && threadCount() <= baselineThreads }
    let s = ledger.summary
    let rounds = requests / roundSize
    let ok = s.completedOnce == requests && s.completedTwice == 0 && s.failed == 0 && s.succeeded >= requests / 2
        && percentile(s.latencies, 1) < 100 && transfers <= 2 * rounds
        && openFileDescriptors() <= baselineFDs && threadCount() <= baselineThreads
    return ["mode": "coalesce", "requests": requests, "rounds": rounds, "transfers": transfers, "succeeded": s.succeeded,
            "cancelled": s.cancelled, "otherErrors": s.failed, "completedExactlyOnce": s.completedOnce,
            "cancelLatencyMsMax": percentile(s.latencies, 1), "fdsBefore": baselineFDs, "fdsAfter": openFileDescriptors(),
            "threadsBefore": baselineThreads, "threadsAfter": threadCount(), "peakRSSMB": peakResidentMegabytes(), "ok": ok]
}

/// A counting semaphore for tasks.
final class AsyncSemaphore: Sendable {
    private let state: Protected<(available: Int, waiters: [CheckedContinuation<Void, Never>])>
    init(_ count: Int) { state = Protected((count, [])) }

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.available > 0 { state.available -= 1; return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty { state.available += 1; return nil }
            return state.waiters.removeFirst()
        }
        waiter?.resume()
    }
}

// MARK: - Main

let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? "soak"
func option(_ name: String, _ fallback: Double) -> Double {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let value = Double(arguments[index + 1]) else { return fallback }
    return value
}

Net.isVerbose = false
let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Servers/test_server.py").path
let externalPort = option("--port", 0)
let server = externalPort > 0 ? LoopbackServer(runningOn: Int(externalPort)) : try LoopbackServer(script: script)
defer { server.stop() }

/// Runs `body` on the cooperative pool and blocks the main thread until it ends. The program's
/// main stays synchronous: valgrind 3.19 crashes on the signal-waiting thread of an async main.
func runBlocking(_ body: @escaping @Sendable () async -> [String: any Sendable]) -> [String: any Sendable] {
    let done = DispatchSemaphore(value: 0)
    let result = Protected<[String: any Sendable]>([:])
    Task.detached {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLock { $0 }
}

let requests = option("--requests", mode == "leak" ? 1000 : 10_000)
let inFlight = option("--in-flight", 500)
let cancelRatio = option("--cancel-ratio", 0.1)
let summary: [String: any Sendable]
switch mode {
case "soak":
    summary = runBlocking { await soak(server: server, requests: Int(requests), inFlight: Int(inFlight), cancelRatio: cancelRatio) }
case "cancel":
    summary = runBlocking { await cancellations(server: server, requests: Int(requests)) }
case "leak":
    summary = runBlocking { await leakRun(server: server, requests: Int(requests)) }
case "coalesce":
    summary = runBlocking { await coalesce(server: server, requests: Int(requests)) }
case "queue":
    let limit = Int(option("--limit", 8))
    let outstanding = Int(option("--in-flight", 500))
    summary = runBlocking { await queueRun(requests: Int(requests), limit: limit, outstanding: outstanding) }
case "adaptive":
    let seconds = option("--seconds", 10)
    summary = runBlocking { await adaptiveRun(seconds: seconds) }
case "breaker":
    summary = runBlocking { await breakerRun(requests: Int(requests)) }
case "hedge":
    summary = runBlocking { await hedgeRun(requests: Int(option("--requests", 2000))) }
default:
    FileHandle.standardError.write(Data("usage: NetworkLayerStress soak|cancel|leak|coalesce|queue|adaptive|breaker|hedge [--requests N]\n".utf8))
    exit(2)
}
let json = summary.keys.sorted().map { key -> String in
    let value = summary[key]!
    switch value {
    case let text as String: return "\"\(key)\": \"\(text)\""
    case let double as Double: return "\"\(key)\": \(String(format: "%.1f", double))"
    default: return "\"\(key)\": \(value)"
    }
}.joined(separator: ", ")
print("{\(json)}")
server.stop()
exit(summary["ok"] as? Bool == true ? 0 : 1)
