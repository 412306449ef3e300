import Foundation
import Synchronization
import Testing
import TestScheduling
@testable import NetworkLayer

/// The buffer between the engine and the reader, on its own: the races between chunks arriving,
/// the producer pausing and resuming, the reader draining, and either side ending the stream.
@Suite("Stream buffer", .sharing)
struct StreamBufferTests {
    @Test("Past the high-water mark the producer is paused; the reader taking the buffer resumes it once")
    func pauseAndResume() async throws {
        let buffer = StreamBuffer(highWater: 100)
        let resumes = Counter()
        buffer.setControl(.init(resume: { resumes.increment() }, cancel: {}))
        let chunk = [UInt8](repeating: 7, count: 30)
        var offers: [StreamBuffer.Offer] = []
        for _ in 0..<5 { offers.append(chunk.withUnsafeBytes { buffer.offer($0) }) }
        #expect(offers == [.accepted, .accepted, .accepted, .accepted, .paused])  // 120 ≥ 100 after four
        #expect(buffer.pauseCount == 1)
        #expect(buffer.bufferedBytes == 120)
        #expect(resumes.value == 0)
        buffer.deliver()  // the round ends
        guard case .chunks(let batch) = await buffer.next(cancelled: .cancelled) else { Issue.record("no chunks"); return }
        #expect(batch.reduce(0) { $0 + $1.count } == 120, "every waiting byte in one batch")
        #expect(buffer.bufferedBytes == 0)
        #expect(resumes.value == 1)
        #expect(chunk.withUnsafeBytes { buffer.offer($0) } == .accepted, "not paused again before the resume")
        buffer.deliver()
        guard case .chunks(let next) = await buffer.next(cancelled: .cancelled) else { Issue.record("no chunks"); return }
        #expect(next.reduce(0) { $0 + $1.count } == 30)
        #expect(resumes.value == 1, "one resume per pause")
        buffer.willResume()
        #expect(chunk.withUnsafeBytes { buffer.offer($0) } == .accepted)
    }

    @Test("A waiting reader is woken by deliver() with every chunk offered before it, not by each offer")
    func deliverWakesOncePerRound() async throws {
        let buffer = StreamBuffer()
        let woken = Counter()
        let reader = Task {
            let taken = await buffer.next(cancelled: .cancelled)
            woken.increment()
            return taken
        }
        try await Task.sleep(for: .milliseconds(50))  // the reader is waiting
        let chunk = [UInt8](repeating: 1, count: 10)
        for _ in 0..<3 { #expect(chunk.withUnsafeBytes { buffer.offer($0) } == .accepted) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(woken.value == 0, "an offer alone does not wake the reader")
        buffer.deliver()
        guard case .chunks(let batch) = await reader.value else { Issue.record("no chunks"); return }
        #expect(batch.reduce(0) { $0 + $1.count } == 30)
        #expect(buffer.bufferedBytes == 0)
    }

    @Test("A round's pieces are gathered into chunks of the chunk size, in order; a full chunk is handed over at once")
    func piecesGatheredIntoChunks() async throws {
        let buffer = StreamBuffer(chunkSize: 64)
        for piece in 0..<5 {
            #expect([UInt8](repeating: UInt8(piece), count: 30).withUnsafeBytes { buffer.offer($0) } == .accepted)
        }
        #expect(buffer.bufferedBytes == 150)
        guard case .chunks(let full) = await buffer.next(cancelled: .cancelled) else { Issue.record("no chunks"); return }
        #expect(full.map(\.count) == [60, 60], "the full chunks, before the round ends")
        buffer.deliver()
        guard case .chunks(let rest) = await buffer.next(cancelled: .cancelled) else { Issue.record("no chunks"); return }
        #expect(rest.map(\.count) == [30])
        let bytes = (full + rest).flatMap { [UInt8]($0) }
        #expect(bytes == (0..<5).flatMap { [UInt8](repeating: UInt8($0), count: 30) })
    }

    @Test("A producer and a reader racing, with pauses, resumes and random cancels, deliver every byte once and in order")
    func races() async throws {
        for seed in 0..<200 as Range<UInt64> {
            var random = SeededRandom(seed: seed)
            let total = Int.random(in: 0...400, using: &random)
            let totalBytes = (0..<total).reduce(0) { $0 + 1 + $1 % 9 }
            let cancelAfter = Bool.random(using: &random) ? Int.random(in: 0...totalBytes + 1, using: &random) : nil
            let buffer = StreamBuffer(highWater: Int.random(in: 1...64, using: &random), chunkSize: Int.random(in: 1...40, using: &random))
            let resumed = DispatchSemaphore(value: 0)
            let producerStopped = Atomic<Bool>(false)
            buffer.setControl(.init(resume: { resumed.signal() }, cancel: {
                producerStopped.store(true, ordering: .relaxed)
                resumed.signal()
            }))
            // The producer is a thread, as the engine's is: it offers piece i, 1 + i % 9 copies of
            // byte i, and waits for a resume when paused, as libcurl would.
            let producer = Thread {
                var next = 0
                while next < total, !producerStopped.load(ordering: .relaxed) {
                    let byte = UInt8(truncatingIfNeeded: next)
                    let chunk = [UInt8](repeating: byte, count: 1 + next % 9)
                    switch chunk.withUnsafeBytes({ buffer.offer($0) }) {
                    case .accepted:
                        next += 1
                        // The end of a round of I/O, as the engine's: after each piece or a few.
                        if next % 3 != 1 { buffer.deliver() }
                    case .paused:
                        buffer.deliver()  // the round ends with the pause
                        resumed.wait()
                        buffer.willResume()
                    case .refused: return
                    }
                }
                buffer.finish(nil)
            }
            producer.start()
            var piece = 0, offset = 0, received = 0
            var cancelled = false
            var ended = false
            while !ended {
                if !cancelled, let cancelAfter, received >= cancelAfter {
                    buffer.cancel(.cancelled)
                    cancelled = true
                }
                switch await buffer.next(cancelled: .cancelled) {
                case .chunks(let chunks):
                    #expect(!chunks.isEmpty && chunks.allSatisfy { !$0.isEmpty }, "seed \(seed): an empty batch or chunk")
                    for chunk in chunks {
                        for byte in chunk {
                            if byte != UInt8(truncatingIfNeeded: piece) {
                                Issue.record("seed \(seed): byte \(received) is \(byte), expected \(UInt8(truncatingIfNeeded: piece))")
                                return
                            }
                            received += 1
                            offset += 1
                            if offset == 1 + piece % 9 { piece += 1; offset = 0 }
                        }
                    }
                    if Int.random(in: 0..<4, using: &random) == 0 { await Task.yield() }
                case .finished:
                    #expect(!cancelled, "seed \(seed): finished after a cancel at \(String(describing: cancelAfter)) of \(totalBytes)")
                    #expect(received == totalBytes, "seed \(seed): \(received) of \(totalBytes) bytes")
                    ended = true
                case .failed(let error):
                    #expect(error.caseName == "cancelled")
                    #expect(cancelled, "seed \(seed)")
                    ended = true
                }
            }
            // After the end, only .finished.
            if case .chunks = await buffer.next(cancelled: .cancelled) { Issue.record("seed \(seed): a chunk after the end") }
        }
    }

    @Test("A reader waiting when its task is cancelled gets .cancelled at once, and the producer is told to stop")
    func cancelWaitingReader() async throws {
        let buffer = StreamBuffer()
        let stopped = Counter()
        buffer.setControl(.init(resume: {}, cancel: { stopped.increment() }))
        let reader = Task { await buffer.next(cancelled: .cancelled(.init(reason: "task"))) }
        try await Task.sleep(for: .milliseconds(20))
        reader.cancel()
        guard case .failed(.cancelled(let context)) = await reader.value else {
            Issue.record("expected .cancelled")
            return
        }
        #expect(context.reason == "task")
        #expect(stopped.value == 1)
        #expect([UInt8](repeating: 0, count: 4).withUnsafeBytes { buffer.offer($0) } == .refused)
        buffer.finish(nil)  // the engine's own end afterwards changes nothing
        #expect(stopped.value == 1)
    }
}
