import Foundation

/// The response cache's engine (RFC 9111, a private cache): lookup, freshening, storing,
/// invalidation, `stale-if-error`. Plain values in and out; it knows no pipeline.
/// Thread-safe: no state of its own beyond its storage tiers, which lock themselves.
final class HTTPCache: Sendable {
    /// Where responses go: the first tier takes everything it may; a non-persistent tier after a
    /// persistent one takes what may not go to disk (responses to authorized requests).
    let tiers: [any CacheStorage]

    /// The most variants stored for one URL (a `Vary: User-Agent` flood is bounded per URL too).
    static let maximumVariantsPerURL = 16
    /// The memory tier beside a disk cache, for responses that may not go to disk.
    static let sideMemoryLimit = 16 << 20

    init(tiers: [any CacheStorage]) {
        self.tiers = tiers
    }

    /// - Throws: ``DiskCacheStorage/OpenError`` when the directory cannot be created or opened.
    static func make(_ configuration: ResponseCache) throws -> HTTPCache? {
        switch configuration {
        case .none:
            return nil
        case .memory(let limit):
            return HTTPCache(tiers: [MemoryCacheStorage(limit: limit)])
        case .disk(let directory, let limit):
            let disk = try DiskCacheStorage(directory: directory, limit: limit)
            return HTTPCache(tiers: [disk, MemoryCacheStorage(limit: min(max(0, limit), sideMemoryLimit))])
        }
    }

    /// Methods that cannot change anything on the server (RFC 9110 section 9.2.1); every other
    /// method, unknown ones included, invalidates.
    static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    func removeAll() {
        for tier in tiers { tier.removeAll() }
    }

    /// Removes every stored response for `url` (all variants, all credentials).
    func removeAll(forURL url: String) {
        guard let urlKey = CacheKeys.url(CacheRequest.keyURL(url)) else { return }
        for tier in tiers { tier.removeAll(forURL: urlKey) }
    }

    // MARK: - Selecting a stored response

    struct Candidate {
        let summary: CacheVariantSummary
        let tier: any CacheStorage
    }

    func candidates(urlKey: SHA256Digest) -> [Candidate] {
        var candidates: [Candidate] = []
        for tier in tiers {
            for summary in tier.summaries(forURL: urlKey) { candidates.append(Candidate(summary: summary, tier: tier)) }
        }
        return candidates
    }

    /// The same without file work or waiting for a lock held by it (see ``CacheStorage``).
    func candidatesWithoutBlocking(urlKey: SHA256Digest) throws(CacheWouldBlock) -> [Candidate] {
        var candidates: [Candidate] = []
        for tier in tiers {
            for summary in try tier.summariesWithoutBlocking(forURL: urlKey) { candidates.append(Candidate(summary: summary, tier: tier)) }
        }
        return candidates
    }

    /// The stored response the request selects (RFC 9111 section 4.1): among the variants stored
    /// with its credentials whose selecting headers match its own, the most recent by `Date`.
    /// A variant whose file turns out unreadable is skipped (its tier removed it).
    func selected(from candidates: [Candidate], urlKey: SHA256Digest, partition: SHA256Digest,
                  request: CacheRequest, now: Double) -> StoredResponse? {
        try? selected(from: candidates, urlKey: urlKey, partition: partition, request: request, now: now, withoutBlocking: false)
    }

    /// The same; `withoutBlocking`: from memory only (see ``CacheStorage``), throwing when a tier cannot.
    func selected(from candidates: [Candidate], urlKey: SHA256Digest, partition: SHA256Digest,
                  request: CacheRequest, now: Double, withoutBlocking: Bool) throws(CacheWouldBlock) -> StoredResponse? {
        func load(_ candidate: Candidate) throws(CacheWouldBlock) -> StoredResponse? {
            let (tier, variantKey) = (candidate.tier, candidate.summary.variantKey)
            return withoutBlocking ? try tier.loadWithoutBlocking(urlKey: urlKey, variantKey: variantKey, now: now)
                                   : tier.load(urlKey: urlKey, variantKey: variantKey, now: now)
        }
        var keys: [[String]: SHA256Digest] = [:]
        let matching = candidates.filter { candidate in
            guard candidate.summary.partition == partition else { return false }
            let names = candidate.summary.varyNames
            // Without Vary the variant key is this request's: no digest to compute on the usual hit.
            if names.isEmpty { return true }
            if keys[names] == nil {
                keys[names] = CacheKeys.variant(urlKey: urlKey, partition: partition, varyNames: names, headers: request.headers)
            }
            return keys[names] == candidate.summary.variantKey
        }
        if matching.count == 1 { return try load(matching[0]) }
        for candidate in matching.sorted(by: { $0.summary.dateValue > $1.summary.dateValue }) {
            if let response = try load(candidate) { return response }
        }
        return nil
    }

    // MARK: - Header fields kept and updated (RFC 9111 section 3.1, 3.2)

    /// Fields that describe one connection or a proxy, never stored (RFC 9110 section 7.6.1,
    /// RFC 9111 section 3.1).
    static let unstoredFields: Set<String> = ["connection", "keep-alive", "proxy-connection", "te", "transfer-encoding",
                                              "upgrade", "trailer", "proxy-authenticate", "proxy-authentication-info",
                                              "proxy-authorization"]

    /// Fields a 304 or a HEAD never updates: `Content-Length` (RFC 9111 section 3.2), and
    /// `Content-Encoding`, because the stored body is already decoded (section 3.2's own example).
    static let nonUpdatableFields: Set<String> = ["content-length", "content-encoding"]

    /// Fields a persistent tier never writes: cookies belong to the cookie jar, not to cache files.
    static let unpersistedFields: Set<String> = ["set-cookie", "set-cookie2"]

    static func connectionOptions(_ headers: CacheHeaderLines) -> Set<String> {
        Set(headers.values(named: "connection").flatMap { CacheControl.fieldNames(in: $0) })
    }

    /// The response's lines as stored: without the fields above, those `Connection` or a qualified
    /// `no-cache` lists.
    static func storedLines(_ headers: CacheHeaderLines, excludingAlso names: Set<String>) -> CacheHeaderLines {
        headers.removing(names: unstoredFields.union(connectionOptions(headers)).union(names))
    }

    /// `stored` updated with `update`'s fields (RFC 9111 section 3.2): each field `update` has,
    /// except those never stored or never updated, replaces all of the stored lines of that name.
    static func updated(_ stored: CacheHeaderLines, with update: CacheHeaderLines) -> CacheHeaderLines {
        let excluded = unstoredFields.union(connectionOptions(update)).union(nonUpdatableFields)
        let incoming = update.removing(names: excluded)
        let replaced = Set(incoming.map { SecretNames.folded($0.name) })
        return stored.removing(names: replaced) + incoming
    }

    /// The tier a response to `request` goes to and its lines there; `nil` when no tier may take it.
    func placement(for request: CacheRequest, lines: CacheHeaderLines) -> (tier: any CacheStorage, lines: CacheHeaderLines)? {
        let mayPersist = !request.hasAuthorization || request.allowsDiskStorageWhenAuthorized
        guard let tier = tiers.first(where: { $0.limit > 0 && (mayPersist || !$0.isPersistent) }) else { return nil }
        guard tier.isPersistent else { return (tier, lines) }
        return (tier, lines.removing(names: Self.unpersistedFields.union(request.secretHeaderNames)))
    }
}
