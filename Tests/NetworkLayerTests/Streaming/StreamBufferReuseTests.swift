import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A stream's large buffers are reused, not allocated and freed per transfer: libcurl's 512 KB
/// receive buffer (kept by the allocation functions the engine gives libcurl) and the 256 KB
/// storage its chunks are gathered in (one pool for every stream). Freeing them per transfer let
/// glibc trim its arena and fault the pages in again each time (Benchmarks/RESULTS.md, scenario 9).
/// Both are released once the engine idles.
@Suite("Stream buffer reuse", .sharing)
struct StreamBufferReuseTests {
    @Test("A small answer gives its chunk storage back at the end of its round, and the next round takes it again")
    func smallChunkStorageComesBack() {
        let buffer = StreamBuffer(chunkSize: 1024)  // a pool of its own, which no other test touches
        let piece = [UInt8](repeating: 7, count: 10)
        #expect(buffer.pool.keptCount == 0)
        #expect(piece.withUnsafeBytes { buffer.offer($0) } == .accepted)
        #expect(buffer.pool.keptCount == 0, "the open chunk holds the storage while the round lasts")
        buffer.deliver()
        #expect(buffer.pool.keptCount == 1, "a small chunk is copied out: its storage goes back to the pool")
        #expect(piece.withUnsafeBytes { buffer.offer($0) } == .accepted)
        #expect(buffer.pool.keptCount == 0, "the next round reuses it")
        buffer.finish(nil)
        #expect(buffer.pool.keptCount == 1)
    }

    @Test("A large chunk keeps its storage until the reader drops it, then the storage goes back to the pool")
    func largeChunkStorageComesBackWhenDropped() async {
        let buffer = StreamBuffer(chunkSize: 1024)
        let piece = [UInt8](repeating: 1, count: 600)  // over an eighth of the chunk: handed over as is
        #expect(piece.withUnsafeBytes { buffer.offer($0) } == .accepted)
        buffer.deliver()
        #expect(buffer.pool.keptCount == 0)
        do {
            guard case .chunks(let chunks) = await buffer.next(cancelled: .cancelled(.init(reason: "test"))) else {
                Issue.record("no chunk")
                return
            }
            #expect(chunks.map(\.count) == [600])
        }
        #expect(buffer.pool.keptCount == 1)
    }

    @Test("Every stream the engine reads gathers its chunks in the one shared pool")
    func enginesStreamsShareThePool() {
        #expect(StreamBuffer().pool === StreamChunkPool.shared)
        #expect(StreamBuffer(chunkSize: 4096).pool !== StreamChunkPool.shared)
    }

    @Test("Streams one after another reuse libcurl's receive buffer, and an idle engine releases what it kept", .measuring)
    func receiveBuffersReusedThenReleased() async throws {
        // Whatever test touched libcurl first, NetworkLayer initialised it (LibcurlInitTests).
        try #require(CurlGlobal.cachesReceiveBuffers)
        try await withSSEServer { server in
            let net = makeManager()
            let reusedBefore = CurlEngine.reusedReceiveBuffers
            for index in 0..<20 {
                let stream = try await net.perform(StreamRequest<ByteStream>(server.provider(), "/bytes?size=\(1000 + index)&chunk=500",
                                                                             timeout: TestTimeout.seconds(10)))
                var total = 0
                for try await chunk in stream { total += chunk.count }
                #expect(total == 1000 + index)
            }
            // The first stream may find the cache empty; the others take the buffer the one before
            // left (unless a stall of over a second between two let the engine release it: hence
            // not 19). Without the cache there is no reuse at all.
            #expect(CurlEngine.reusedReceiveBuffers - reusedBefore >= 10)
            #expect(CurlEngine.keptReceiveBuffers >= 1)
            #expect(StreamChunkPool.shared.keptCount >= 1)

            // Nothing else runs beside a measuring test: the engine goes idle and, a second later, frees both.
            let deadline = ContinuousClock.now + .seconds(TestTimeout.seconds(5))
            while CurlEngine.keptReceiveBuffers > 0 || StreamChunkPool.shared.keptCount > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(CurlEngine.keptReceiveBuffers == 0)
            #expect(StreamChunkPool.shared.keptCount == 0)
        }
    }
}
