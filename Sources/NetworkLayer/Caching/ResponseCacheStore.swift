import Dispatch
import Foundation
import Synchronization

/// A manager's response cache as its requests use it: the engine (``HTTPCache``) for one
/// ``ResponseCache`` setting, opened once, with its file work kept off Swift's cooperative pool.
///
/// A memory cache's work runs inline. A disk cache's blocking work runs on one serial queue of
/// its own, so a removal requested before a request starts happens before its lookup; a lookup
/// memory alone can answer runs inline when nothing is queued. A directory that cannot be opened
/// fails each request with ``NetworkError/invalidRequest(_:)`` before anything is sent.
final class ResponseCacheStore: Sendable {
    let configuration: ResponseCache
    /// Where the disk work runs, in order; `nil` for a memory cache.
    let queue: DispatchQueue?
    /// The opened engine, or why it could not be opened; `nil` until the queue has opened it.
    private let opened = Protected<Result<HTTPCache, NetworkError>?>(nil)
    /// The URLs being revalidated in the background (stale-while-revalidate): one at a time each.
    private let revalidating = Protected<Set<String>>([])
    /// The work items queued and not yet finished: a lookup only runs inline when none are, so
    /// that it still comes after everything asked for before it (a removal, a store).
    private let queued = Atomic<Int>(0)

    /// The store for `configuration`; `nil` for ``ResponseCache/none``. A disk cache starts
    /// opening on its queue at once; this call does not wait for it.
    init?(_ configuration: ResponseCache) {
        self.configuration = configuration
        switch configuration {
        case .none:
            return nil
        case .memory:
            queue = nil
            opened.withLock { $0 = Self.open(configuration) }
        case .disk:
            let queue = DispatchQueue(label: "NetworkLayer.response-cache")
            self.queue = queue
            queue.async { [opened] in
                let result = Self.open(configuration)
                opened.withLock { $0 = result }
            }
        }
    }

    /// The engine for `configuration`, or the error that says why it cannot be opened.
    private static func open(_ configuration: ResponseCache) -> Result<HTTPCache, NetworkError> {
        do {
            guard let cache = try HTTPCache.make(configuration) else {
                return .failure(.invalidRequest(.init(reason: "the response cache is off")))
            }
            return .success(cache)
        } catch {
            let reason = (error as? DiskCacheStorage.OpenError)?.description ?? "\(error)"
            return .failure(.invalidRequest(.init(
                reason: "the response cache could not be opened (\(HeaderFields.printable(reason))); "
                    + "give Net.cache a directory this process can create and write, or set Net.cache = .none",
                underlyingError: error)))
        }
    }

    /// Runs `work` with the engine: inline for a memory cache, on the queue for a disk cache.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` when the disk cache could not be opened.
    nonisolated(nonsending) func perform<T: Sendable>(_ work: @escaping @Sendable (HTTPCache) -> T) async throws(NetworkError) -> T {
        guard let queue else { return work(try engine()) }
        queued.add(1, ordering: .relaxed)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, NetworkError>, Never>) in
            queue.async {
                let result = Result { () throws(NetworkError) in work(try self.engine()) }
                self.queued.subtract(1, ordering: .releasing)
                continuation.resume(returning: result)
            }
        }
        return try result.get()
    }

    /// ``HTTPCache/lookupWithoutBlocking(_:policy:now:)`` on this task, when the cache is open and
    /// nothing is queued before it; `nil` when the lookup has to go through ``perform(_:)``.
    func lookupWithoutBlocking(_ request: CacheRequest, policy: CachePolicy, now: Date) -> CacheLookup? {
        guard queued.load(ordering: .acquiring) == 0, case .success(let cache)? = opened.withLock({ $0 }) else { return nil }
        return try? cache.lookupWithoutBlocking(request, policy: policy, now: now)
    }

    /// Runs `work` with the engine without waiting for it (a disk cache's work is queued behind
    /// what is already queued); nothing happens when the cache could not be opened.
    func enqueue(_ work: @escaping @Sendable (HTTPCache) -> Void) {
        guard let queue else {
            if let cache = try? engine() { work(cache) }
            return
        }
        queued.add(1, ordering: .relaxed)
        queue.async {
            if let cache = try? self.engine() { work(cache) }
            self.queued.subtract(1, ordering: .releasing)
        }
    }

    /// The opened engine. On the queue (or for a memory cache) it is always there.
    private func engine() throws(NetworkError) -> HTTPCache {
        guard let result = opened.withLock({ $0 }) else {
            throw .invalidRequest(.init(reason: "the response cache is not open yet"))
        }
        return try result.get()
    }
}

extension ResponseCacheStore {
    /// Whether a background revalidation of `url` may start now: marks it running.
    func beginRevalidation(of url: String) -> Bool {
        revalidating.withLock { $0.insert(url).inserted }
    }

    /// The background revalidation of `url` ended.
    func endRevalidation(of url: String) {
        _ = revalidating.withLock { $0.remove(url) }
    }
}
