import Foundation

/// Storage for a stream's chunks, reused: the buffers the producer fills with libcurl's pieces and
/// hands to the reader as `Data` that gives its buffer back here when the reader drops it.
///
/// Reused buffers stay resident instead of being faulted in afresh. At most ``keptLimit`` free
/// buffers are kept, and all are freed when the stream's buffer and every chunk from here are gone.
final class StreamChunkPool: Sendable {
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
