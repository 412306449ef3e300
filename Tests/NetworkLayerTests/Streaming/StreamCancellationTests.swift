import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Ending a stream early: leaving the loop, cancelling the reading task, dropping the stream.
/// Each cancels the transfer and closes its connection, seen in the kernel's TCP table (not by
/// asking the server), within 100 ms plus the time the libcurl thread and the measuring thread
/// waited for a core (see ``withCoreWaits(_:)``: this machine has two cores shared with others).
@Suite("Stream cancellation", .serialized, .measuring)
struct StreamCancellationTests {
    static let bound: Duration = .milliseconds(100)

    /// Runs `end` (which ends the stream somehow) on the measuring executor; returns how long
    /// after it the connection was closed, and the core waits meanwhile.
    static func closeLatency(port: Int, _ end: @escaping @Sendable () async -> Void) async -> (Duration?, Duration) {
        await withCoreWaits {
            await Task(executorPreference: ReliabilityExecutor.shared) {
                await end()
                return await waitForConnectionsToClose(toPort: port)
            }.value
        }
    }

    @Test("Breaking out of the loop cancels the transfer and closes its connection within 100 ms")
    func breakOut() async throws {
        try await withSSEServer { server in
            await learnEngineThread(via: server.provider())
            let net = makeManager()
            let stream = try await net.perform(StreamRequest<EventStream>(server.provider(), "/sse/forever?interval=5"))
            #expect(establishedConnections(toPort: server.port) == 1)
            let seen = Counter()
            let (latency, waited) = await Self.closeLatency(port: server.port) {
                do throws(NetworkError) {
                    for try await _ in stream where seen.increment() == 3 { break }
                } catch {
                    Issue.record("\(error)")
                }
            }
            #expect(seen.value == 3)
            // `stream` is still alive here: leaving the loop is what ended the transfer.
            #expect(stream.response.statusCode == 200)
            let measured = try #require(latency, "the connection stayed open")
            #expect(measured < Self.bound + waited, "closed \(measured) after the break (waits for a core: \(waited))")
            try await Task.sleep(for: .milliseconds(100))
            let stats = try await server.stats()
            #expect(stats.open == 0, "the server still writes to \(stats.open) streams")
        }
    }

    @Test("Cancelling the reading task ends the loop with .cancelled and closes the connection within 100 ms")
    func cancelTask() async throws {
        try await withSSEServer { server in
            await learnEngineThread(via: server.provider())
            let stream = try await makeManager().perform(StreamRequest<EventStream>(server.provider(), "/sse/forever?interval=5"))
            let reader = Task(executorPreference: ReliabilityExecutor.shared) { () -> (Int, NetworkError?) in
                var count = 0
                do throws(NetworkError) {
                    for try await _ in stream { count += 1 }
                } catch {
                    return (count, error)
                }
                return (count, nil)
            }
            try await Task.sleep(for: .milliseconds(100))
            let (latency, waited) = await Self.closeLatency(port: server.port) { reader.cancel() }
            let (count, error) = await reader.value
            #expect(count > 0)
            guard case .cancelled(let context)? = error else {
                Issue.record("expected .cancelled, got \(String(describing: error))")
                return
            }
            #expect(context.reason == "the task reading the stream was cancelled")
            let measured = try #require(latency, "the connection stayed open")
            #expect(measured < Self.bound + waited, "closed \(measured) after the cancel (waits for a core: \(waited))")
        }
    }

    @Test("Dropping a stream that was never read cancels the transfer and closes its connection within 100 ms")
    func drop() async throws {
        try await withSSEServer { server in
            await learnEngineThread(via: server.provider())
            let net = makeManager()
            let holder = Protected<EventStream?>(try await net.perform(StreamRequest<EventStream>(server.provider(), "/sse/forever?interval=5")))
            #expect(establishedConnections(toPort: server.port) == 1)
            let (latency, waited) = await Self.closeLatency(port: server.port) { holder.withLock { $0 = nil } }
            let measured = try #require(latency, "the connection stayed open")
            #expect(measured < Self.bound + waited, "closed \(measured) after the drop (waits for a core: \(waited))")
        }
    }

    @Test("100 concurrent streams each get all their events; 100 more, left early, all close their connections")
    func concurrentStreams() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            let provider = server.provider()
            let counts = try await withThrowingTaskGroup(of: [String?].self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        let stream = try await net.perform(StreamRequest<EventStream>(provider, "/sse/ticks?count=20&interval=10", timeout: 30))
                        return await collect(stream).events.map(\.id)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(counts.count == 100)
            #expect(counts.allSatisfy { $0 == (1...20).map { "\($0)" } })

            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        let stream = try await net.perform(StreamRequest<EventStream>(provider, "/sse/forever?interval=10", timeout: 30))
                        var seen = 0
                        for try await _ in stream {
                            seen += 1
                            if seen > index % 5 { break }
                        }
                        return seen
                    }
                }
                for try await seen in group { #expect(seen >= 1) }
            }
            #expect(await waitForConnectionsToClose(toPort: server.port) != nil)
            try await Task.sleep(for: .milliseconds(200))
            let stats = try await server.stats()
            #expect(stats.open == 0)
            #expect(stats.opened == 200)
        }
    }

    @Test("Cancelling while the transfer pauses and resumes (a fast body, a slow reader) never loses, repeats or hangs")
    func cancelWhilePausing() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            let provider = server.provider()
            var random = SeededRandom(seed: 41)
            // Each stream stops after a different amount: some before the first pause, most
            // while the engine pauses and resumes the transfer.
            let limits = (0..<24).map { _ in Int.random(in: 0...(6 << 20), using: &random) }
            try await withThrowingTaskGroup(of: (Int, Int, Bool).self) { group in
                for limit in limits {
                    group.addTask {
                        let stream = try await net.perform(StreamRequest<ByteStream>(provider, "/bytes?size=16777216&chunk=262144"))
                        var received = 0
                        var inOrder = true
                        for try await chunk in stream {
                            for (offset, byte) in chunk.enumerated() where byte != UInt8(truncatingIfNeeded: received + offset) {
                                inOrder = false
                                break
                            }
                            received += chunk.count
                            if received >= limit { break }
                            if received % (1 << 20) < chunk.count { try await Task.sleep(for: .milliseconds(2)) }
                        }
                        return (limit, received, inOrder)
                    }
                }
                for try await (limit, received, inOrder) in group {
                    #expect(inOrder, "bytes out of order before \(received)")
                    #expect(received >= min(limit, 16 << 20))
                }
            }
            #expect(await waitForConnectionsToClose(toPort: server.port) != nil)
        }
    }
}
