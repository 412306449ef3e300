import Foundation

/// Storage for a stream's chunks, reused: the buffers the producer fills with libcurl's pieces and
/// hands to the reader as `Data` that gives its buffer back here when the reader drops it.
///
/// Reused buffers stay resident instead of being faulted in afresh (and glibc does not trim its
/// arena each time one comes free: Benchmarks/RESULTS.md, scenario 9). At most ``keptLimit`` free
/// buffers are kept. A stream with its own pool frees them when its buffer and every chunk from
/// here are gone; ``shared`` keeps them until the engine has run no transfer for a second.
final class StreamChunkPool: Sendable {
    /// The size of a chunk's storage for every stream the engine reads.
    static let standardCapacity = 256 << 10

    /// The pool every stream of the standard chunk size shares: at most 64 free buffers (16 MB of
    /// address space, resident only where a stream wrote), emptied by the engine when it idles.
    static let shared = StreamChunkPool(capacity: standardCapacity, keptLimit: 64)

    let capacity: Int
    /// How many free buffers are kept for reuse.
    let keptLimit: Int
    private let free = Protected<[UnsafeMutableRawPointer]>([])

    init(capacity: Int, keptLimit: Int) {
        self.capacity = capacity
        self.keptLimit = keptLimit
    }

    deinit {
        free.withLock { buffers in for buffer in buffers { Foundation.free(buffer) } }
    }

    /// A buffer of ``capacity`` bytes, reused when one is free; `nil` when memory is exhausted.
    func take() -> UnsafeMutableRawPointer? {
        if let buffer = free.withLock({ $0.popLast() }) { return buffer }
        return malloc(capacity)
    }

    /// How many free buffers are kept now.
    var keptCount: Int { free.withLock { $0.count } }

    /// Frees every kept buffer (buffers in use come back, and are kept, later).
    func releaseKept() {
        let buffers = free.withLock { buffers -> [UnsafeMutableRawPointer] in
            defer { buffers = [] }
            return buffers
        }
        for buffer in buffers { Foundation.free(buffer) }
    }

    func give(_ buffer: UnsafeMutableRawPointer) {
        let kept = free.withLock { buffers -> Bool in
            guard buffers.count < keptLimit else { return false }
            buffers.append(buffer)
            return true
        }
        if !kept { Foundation.free(buffer) }
    }

    /// The first `count` bytes of `buffer` as `Data` that owns it: the buffer comes back to this
    /// pool when the last copy of the `Data` is dropped.
    func data(owning buffer: UnsafeMutableRawPointer, count: Int) -> Data {
        Data(bytesNoCopy: buffer, count: count, deallocator: .custom { [self] pointer, _ in give(pointer) })
    }
}
