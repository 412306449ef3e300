import Foundation

/// Stored responses in memory, bounded by a limit in bytes (each response's ``StoredResponse/cost``:
/// body, header text and a fixed overhead), least recently used evicted first.
///
/// A response costing more than a quarter of the limit is not stored. Thread-safe: one
/// ``Protected`` lock around the whole state.
final class MemoryCacheStorage: CacheStorage {
    let limit: Int
    var isPersistent: Bool { false }

    /// One entry in the recency list (most recent at `newest`); a class, so moving it changes links only.
    private final class Node {
        let response: StoredResponse
        /// What a lookup needs without the response, made once.
        let summary: CacheVariantSummary
        let cost: Int
        var newer: SHA256Digest?
        var older: SHA256Digest?

        init(response: StoredResponse, cost: Int) {
            self.response = response
            summary = response.summary
            self.cost = cost
        }
    }

    private struct State {
        /// By variant key (which is unique across URLs: it digests the URL key).
        var nodes: [SHA256Digest: Node] = [:]
        /// URL key → its variant keys.
        var variants: [SHA256Digest: [SHA256Digest]] = [:]
        var newest: SHA256Digest?
        var oldest: SHA256Digest?
        var total = 0

        mutating func unlink(_ node: Node) {
            if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
            if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
            node.newer = nil
            node.older = nil
        }

        mutating func pushNewest(_ node: Node, key: SHA256Digest) {
            node.older = newest
            node.newer = nil
            if let newest { nodes[newest]?.newer = key }
            newest = key
            if oldest == nil { oldest = key }
        }

        mutating func remove(_ key: SHA256Digest) {
            guard let node = nodes[key] else { return }
            unlink(node)
            nodes[key] = nil
            total -= node.cost
            let urlKey = node.response.urlKey
            variants[urlKey]?.removeAll { $0 == key }
            if variants[urlKey]?.isEmpty == true { variants[urlKey] = nil }
        }
    }

    private let state = Protected(State())

    /// - Parameter limit: the most bytes kept; 0 or less keeps nothing.
    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// The bytes held now (for tests: never above ``limit``).
    var totalCost: Int { state.withLock { $0.total } }

    /// How many responses are held now.
    var count: Int { state.withLock { $0.nodes.count } }

    func summaries(forURL urlKey: SHA256Digest) -> [CacheVariantSummary] {
        state.withLock { state in
            (state.variants[urlKey] ?? []).compactMap { state.nodes[$0]?.summary }
        }
    }

    func load(urlKey: SHA256Digest, variantKey: SHA256Digest, now: Double) -> StoredResponse? {
        state.withLock { state in
            guard let node = state.nodes[variantKey], node.response.urlKey == urlKey else { return nil }
            if state.newest != variantKey {
                state.unlink(node)
                state.pushNewest(node, key: variantKey)
            }
            return node.response
        }
    }

    // Its lock is only ever held for memory work: waiting for it is not waiting for I/O.
    func summariesWithoutBlocking(forURL urlKey: SHA256Digest) -> [CacheVariantSummary] {
        summaries(forURL: urlKey)
    }

    func loadWithoutBlocking(urlKey: SHA256Digest, variantKey: SHA256Digest, now: Double) -> StoredResponse? {
        load(urlKey: urlKey, variantKey: variantKey, now: now)
    }

    @discardableResult
    func save(_ response: StoredResponse, now: Double) -> Bool {
        let cost = response.cost
        guard cost <= largestEntry, cost <= limit else { return false }
        state.withLock { state in
            state.remove(response.variantKey)
            while state.total + cost > limit, let oldest = state.oldest {
                state.remove(oldest)
            }
            let node = Node(response: response, cost: cost)
            state.nodes[response.variantKey] = node
            state.variants[response.urlKey, default: []].append(response.variantKey)
            state.pushNewest(node, key: response.variantKey)
            state.total += cost
        }
        return true
    }

    func remove(urlKey: SHA256Digest, variantKey: SHA256Digest) {
        state.withLock { state in
            guard state.nodes[variantKey]?.response.urlKey == urlKey else { return }
            state.remove(variantKey)
        }
    }

    func removeAll(forURL urlKey: SHA256Digest) {
        state.withLock { state in
            for key in state.variants[urlKey] ?? [] { state.remove(key) }
        }
    }

    func removeAll() {
        state.withLock { $0 = State() }
    }
}
