import Foundation
import Synchronization
@testable import NetworkLayer

/// What a test's upload sequence did: bytes produced, chunks asked for, and when it was last
/// asked for one. Shared between the sequence (which runs on the library's producer task) and the test.
final class ProducerLog: Sendable {
    private let producedBytes = Atomic<Int>(0)
    private let requests = Atomic<Int>(0)
    private let lastRequest = Protected<ContinuousClock.Instant?>(nil)
    private let ended = Atomic<Bool>(false)

    var produced: Int { producedBytes.load(ordering: .acquiring) }
    /// How many times the library asked the sequence for its next chunk.
    var chunksRequested: Int { requests.load(ordering: .acquiring) }
    /// When the library last asked for a chunk.
    var lastRequested: ContinuousClock.Instant? { lastRequest.withLock { $0 } }
    /// Whether the iteration ended (the sequence returned nil, threw, or its iterator was dropped).
    var isEnded: Bool { ended.load(ordering: .acquiring) }

    fileprivate func asked() {
        requests.add(1, ordering: .acquiringAndReleasing)
        lastRequest.withLock { $0 = .now }
    }
    fileprivate func produced(_ count: Int) { producedBytes.add(count, ordering: .acquiringAndReleasing) }
    fileprivate func end() { ended.store(true, ordering: .releasing) }
}

/// An upload body generated lazily: `total` bytes where byte i is `i % 256`, in chunks of
/// `chunkSize`, optionally waiting `pause` before each chunk and throwing `failure` once
/// `failAfter` bytes were produced. It counts what it produces in `log`. Nothing is generated
/// before it is asked for, so memory holds only what the library buffers.
struct PatternChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let total: Int
    let chunkSize: Int
    var pause: Duration?
    var failAfter: Int?
    var failure: (any Error & Sendable)?
    let log: ProducerLog

    init(total: Int, chunkSize: Int = 64 << 10, pause: Duration? = nil, failAfter: Int? = nil,
         failure: (any Error & Sendable)? = nil, log: ProducerLog = ProducerLog()) {
        self.total = total
        self.chunkSize = chunkSize
        self.pause = pause
        self.failAfter = failAfter
        self.failure = failure
        self.log = log
    }

    final class AsyncIterator: AsyncIteratorProtocol {
        let chunks: PatternChunks
        var position = 0
        /// The pattern, long enough to cut any chunk from (a copy per chunk, not a loop per byte).
        let block: Data

        init(_ chunks: PatternChunks) {
            self.chunks = chunks
            block = Data((0..<(chunks.chunkSize + 256)).map { UInt8(truncatingIfNeeded: $0) })
        }
        deinit { chunks.log.end() }

        func next() async throws -> Data? {
            chunks.log.asked()
            if let pause = chunks.pause { try await Task.sleep(for: pause) }
            if let failAfter = chunks.failAfter, position >= failAfter, let failure = chunks.failure { throw failure }
            guard position < chunks.total else { return nil }
            let count = Swift.min(chunks.chunkSize, chunks.total - position)
            let start = position
            position += count
            chunks.log.produced(count)
            let offset = start % 256
            return block.subdata(in: offset..<(offset + count))
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(self) }

    /// Every byte the sequence produces (for small totals).
    var bytes: [UInt8] { (0..<total).map { UInt8(truncatingIfNeeded: $0) } }
}

/// What sse_server.py's `POST /upload` saw of a body.
struct UploadReport: Decodable, Sendable, Equatable {
    let size: Int
    let sha256: String
    let chunked: Bool
    let chunks: Int
    let pattern: Bool
}

/// What sse_server.py's `GET /upload/received` says of an upload in progress.
struct UploadProgressReport: Decodable, Sendable {
    let received: Int
    let done: Bool
    let attempts: Int
}

extension SSEServer {
    /// How much of upload `id` the server has read so far.
    func uploadProgress(id: String) async throws -> UploadProgressReport {
        try await makeManager().perform(TestRequest<UploadProgressReport>(provider(), "/upload/received?id=\(id)", timeout: 5))
    }
}

/// A request whose body is a sequence (``RequestBody/stream(_:length:contentType:)``).
final class StreamUploadRequest<Response: Decodable & Sendable>: BaseRequest<Response> {
    init(_ provider: any ServiceProvider, _ endpoint: String, body: RequestBody, method: HTTPMethod = .post,
         timeout: TimeInterval = TestTimeout.seconds(30)) {
        super.init(serviceProvider: provider, endpoint: endpoint)
        httpMethod = method
        self.body = body
        requestTimeout = .seconds(timeout)
    }
}

/// The SHA-256 of `bytes` in lower-case hex, as Python's `hexdigest()` writes it.
func sha256Hex(_ bytes: some Collection<UInt8>) -> String {
    HMACSHA256.sha256(bytes).map { String(format: "%02x", $0) }.joined()
}

/// The library's upload buffer of a streamed body (to read its counts in tests).
func uploadStream(of body: RequestBody) -> UploadStream? {
    guard case .stream(.success(let upload), _) = body.content else { return nil }
    return upload
}

/// An error of the application's own type, thrown by an upload sequence.
struct ExportFailed: Error, Equatable {
    let row: Int
}

/// Polls `condition` every millisecond until it holds; how long that took, or `nil` after `limit`.
@discardableResult
func waitUntil(limit: Duration = .seconds(10), _ condition: @Sendable () -> Bool) async -> Duration? {
    let clock = ContinuousClock()
    let start = clock.now
    while clock.now - start < limit {
        if condition() { return clock.now - start }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition() ? clock.now - start : nil
}

/// The largest send buffer the kernel autotunes a TCP socket to (the last field of
/// /proc/sys/net/ipv4/tcp_wmem), 4 MB when it cannot be read.
func socketSendBufferMaximum() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_wmem", encoding: .utf8),
          let last = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).last, let value = Int(last) else {
        return 4 << 20
    }
    return value
}
