internal import CNetworkLayerCurl
import Foundation

/// Closes the connections no transfer used for the idle time (``ConnectionLimits/idleTimeout``)
/// while other transfers keep running. Engine thread only.
///
/// libcurl closes a connection older than `CURLOPT_MAXAGE_CONN` only when a transfer looks in
/// its cache, which a long download or stream never does. So, once a second, the pruner starts a
/// transfer on each such cache to a Unix socket path that does not exist: libcurl closes what is
/// too old, and the transfer fails without touching the network.
final class IdleConnectionPruner {
    /// A connection cache transfers used, with how many use it now and when the last one ended.
    /// Held weakly: a cache its owner lets go of closes its connections at once.
    private struct Cache {
        weak var share: CurlShare?
        var users: Int
        var lastUsed: ContinuousClock.Instant
    }

    private var caches: [ObjectIdentifier: Cache] = [:]
    /// The pruning transfers running, by easy handle, each with the cache it looks through (kept
    /// alive until the handle lets go of it).
    private var running: [UnsafeMutableRawPointer: (handle: CurlEasyHandle, cache: CurlShare)] = [:]
    private var nextRound = ContinuousClock.now

    /// Where the pruning transfers connect: a path no socket is at, so the connect fails at once.
    private static let nowhere = "/nonexistent/networklayer-prune.sock"

    var isIdle: Bool { caches.isEmpty && running.isEmpty }

    func attached(_ share: CurlShare) {
        let id = ObjectIdentifier(share)
        // The same identifier with another share: the old one is gone, and its entry with it.
        if let index = caches.index(forKey: id), caches.values[index].share === share {
            caches.values[index].users += 1
        } else {
            caches[id] = Cache(share: share, users: 1, lastUsed: .now)
        }
    }

    func detached(_ share: CurlShare) {
        guard let index = caches.index(forKey: ObjectIdentifier(share)), caches.values[index].share === share else { return }
        caches.values[index].users = max(0, caches.values[index].users - 1)
        caches.values[index].lastUsed = .now
    }

    /// Forgets every cache (the idle timeout was lifted); running pruning transfers finish as usual.
    func removeAll() {
        caches.removeAll()
    }

    /// Starts a pruning transfer on each cache without one running; a cache unused for longer than
    /// `idleSeconds` is pruned once more, then forgotten. Returns how long the engine may sleep (ms).
    func prune(idleSeconds: Int, multi: UnsafeMutableRawPointer) -> Int32 {
        let now = ContinuousClock.now
        guard !caches.isEmpty else { return 1000 }
        guard now >= nextRound else { return Self.milliseconds(until: nextRound, from: now) }
        nextRound = now + .seconds(1)
        let busy = Set(running.values.map { ObjectIdentifier($0.cache) })
        for (id, cache) in caches {
            guard let share = cache.share else {
                caches[id] = nil
                continue
            }
            if !busy.contains(id) { start(on: share, idleSeconds: idleSeconds, multi: multi) }
            if cache.users == 0, cache.lastUsed + .seconds(idleSeconds) <= now { caches[id] = nil }
        }
        return 1000
    }

    /// Removes `easy` from the multi handle if it is a pruning transfer that ended; `false` for
    /// any other handle.
    func finish(_ easy: UnsafeMutableRawPointer, multi: UnsafeMutableRawPointer) -> Bool {
        guard let pruning = running.removeValue(forKey: easy) else { return false }
        _ = curl_multi_remove_handle(multi, easy)
        // Detaching cannot fail for a handle that is not in a multi handle; then the cache may go.
        try? pruning.handle.set(CURLOPT_SHARE, pointer: nil)
        return true
    }

    /// A transfer that looks through `share`'s cache, closing connections unused for `idleSeconds`.
    private func start(on share: CurlShare, idleSeconds: Int, multi: UnsafeMutableRawPointer) {
        do throws(NetworkError) {
            let handle = try CurlEasyHandle()
            try handle.set(CURLOPT_NOSIGNAL, true)
            try handle.set(CURLOPT_URL, "http://networklayer-prune.invalid/")
            try handle.set(CURLOPT_UNIX_SOCKET_PATH, Self.nowhere)
            try handle.set(CURLOPT_PROXY, "")
            try handle.set(CURLOPT_CONNECT_ONLY, true)
            try handle.set(CURLOPT_MAXAGE_CONN, max(idleSeconds - 1, 0))
            try handle.set(CURLOPT_SHARE, pointer: share.raw)
            guard curl_multi_add_handle(multi, handle.raw) == CURLM_OK else {
                try? handle.set(CURLOPT_SHARE, pointer: nil)
                return
            }
            running[handle.raw] = (handle, share)
        } catch {
            // Out of memory, or an option refused: this round skips the cache; the next tries again.
        }
    }

    private static func milliseconds(until deadline: ContinuousClock.Instant, from now: ContinuousClock.Instant) -> Int32 {
        let (seconds, attoseconds) = (deadline - now).components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }
}
