import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Cancelling the task that performs a request with a streamed body stops the transfer and the
/// iteration of the sequence at once, whether the sequence is waiting for room (the server is
/// slow) or slow to produce. Measured from the cancel to the sequence's iterator being released
/// and to the connection leaving the kernel's TCP table, within 100 ms plus the time the
/// measuring and libcurl threads waited for a core (see ``withCoreWaits(_:)``).
@Suite("Streamed upload cancellation", .serialized, .measuring)
struct StreamUploadCancellationTests {
    static let bound: Duration = .milliseconds(100)

    /// Cancels `task` from the measuring executor; how long until the sequence's iteration ended
    /// and the connection closed, and the core waits meanwhile.
    static func stopLatency(of task: Task<UploadReport, any Error>, log: ProducerLog, port: Int)
        async -> (iteration: Duration?, connection: Duration?, waited: Duration) {
        let ((iteration, connection), waited) = await withCoreWaits {
            await Task(executorPreference: ReliabilityExecutor.shared) { () -> (Duration?, Duration?) in
                let clock = ContinuousClock()
                let start = clock.now
                task.cancel()
                let iteration = await waitUntil(limit: .seconds(2)) { log.isEnded }
                let closed = await waitForConnectionsToClose(toPort: port, limit: .seconds(2))
                return (iteration, closed.map { _ in clock.now - start })
            }.value
        }
        return (iteration, connection, waited)
    }

    @Test("Cancelling mid-upload to a slow server stops the sequence and closes the connection within 100 ms")
    func cancelWhileServerIsSlow() async throws {
        try await withSSEServer { server in
            await learnEngineThread(via: server.provider())
            // The server reads 64 KB every 20 ms: the producer is soon waiting for room.
            let log = ProducerLog()
            let chunks = PatternChunks(total: 256 << 20, chunkSize: 64 << 10, log: log)
            let net = makeManager()
            let task = Task {
                try await net.perform(StreamUploadRequest<UploadReport>(server.provider(), "/upload?delay=20",
                                                                        body: .stream(chunks, length: chunks.total)))
            }
            #expect(await waitUntil { log.produced >= 2 << 20 } != nil, "the upload did not start")
            let (iteration, connection, waited) = await Self.stopLatency(of: task, log: log, port: server.port)
            let stopped = try #require(iteration, "the sequence was never released")
            #expect(stopped < Self.bound + waited, "the sequence was released \(stopped) after the cancel (waits for a core: \(waited))")
            let closed = try #require(connection, "the connection stayed open")
            #expect(closed < Self.bound + waited, "the connection closed \(closed) after the cancel (waits for a core: \(waited))")
            let outcome = await task.result
            guard case .failure(let error as NetworkError) = outcome else {
                Issue.record("expected .cancelled, got \(outcome)")
                return
            }
            #expect(error.caseName == "cancelled")
            let produced = log.produced
            try await Task.sleep(for: .milliseconds(100))
            #expect(log.produced == produced, "the sequence went on producing after the cancel")
            #expect(produced < 8 << 20, "the sequence produced \(produced >> 20) MB for a server that read a few")
        }
    }

    @Test("Cancelling while the sequence is slow to produce stops its iteration within 100 ms")
    func cancelWhileProducerIsSlow() async throws {
        try await withSSEServer { server in
            await learnEngineThread(via: server.provider())
            let log = ProducerLog()
            let chunks = PatternChunks(total: 10 << 20, chunkSize: 1000, pause: .milliseconds(20), log: log)
            let net = makeManager()
            let task = Task {
                try await net.perform(StreamUploadRequest<UploadReport>(server.provider(), "/upload", body: .stream(chunks)))
            }
            #expect(await waitUntil { log.chunksRequested >= 5 } != nil, "the upload did not start")
            let (iteration, connection, waited) = await Self.stopLatency(of: task, log: log, port: server.port)
            let stopped = try #require(iteration, "the sequence was never released")
            #expect(stopped < Self.bound + waited, "the sequence was released \(stopped) after the cancel (waits for a core: \(waited))")
            #expect(connection != nil, "the connection stayed open")
            let requested = log.chunksRequested
            try await Task.sleep(for: .milliseconds(100))
            #expect(log.chunksRequested == requested, "the sequence was asked for more after the cancel")
            if case .failure(let error as NetworkError) = await task.result {
                #expect(error.caseName == "cancelled")
            } else {
                Issue.record("the request did not fail")
            }
        }
    }
}
