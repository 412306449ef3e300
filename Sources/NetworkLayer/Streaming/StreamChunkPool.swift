import Foundation

/// Storage for a stream's chunks, reused: the buffers the producer fills with libcurl's pieces and
/// hands to the reader as `Data` that gives its buffer back here when the reader drops it.
///
/// A fresh buffer for every chunk made the kernel fault in (and zero) new pages over and over:
/// `malloc` returns a freed run of chunks to the system as soon as the reader drops them.
/// Reused buffers stay resident. At most ``keptLimit`` free buffers are kept; the rest are freed,
/// and all of them when the stream's buffer and every chunk made from this pool are gone.
final class StreamChunkPool: Sendable {
    /// The size of every buffer.
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

    /// Takes back a buffer the pool gave out.
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
