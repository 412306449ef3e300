import Foundation

extension HTTPCache {
    /// What to do with `request` under `policy` at `now` (RFC 9111 section 4).
    ///
    /// - `.useProtocol`: the selected response when fresh; stale as `max-stale` or
    ///   `stale-while-revalidate` allow (never with `must-revalidate` or `no-cache`); else validated.
    /// - `.reloadIgnoringCache`: `.miss`, always.
    /// - `.returnCacheElseLoad`: any selected response without validation, else the network; the
    ///   request's directives are not read.
    /// - `.returnCacheDontLoad`: the same, but `.unavailable` instead of the network.
    ///
    /// Only GET requests are answered from the cache; a request with its own preconditions or a
    /// `Range` goes out unchanged.
    func lookup(_ request: CacheRequest, policy: CachePolicy, now date: Date) -> CacheLookup {
        do {
            return try lookup(request, policy: policy, now: date, withoutBlocking: false)
        } catch {
            return .miss
        }
    }

    /// The same answered from memory: no file work, no wait for a lock.
    /// - Throws: ``CacheWouldBlock`` when a tier cannot answer so; ask ``lookup(_:policy:now:)`` then.
    func lookupWithoutBlocking(_ request: CacheRequest, policy: CachePolicy, now date: Date) throws(CacheWouldBlock) -> CacheLookup {
        try lookup(request, policy: policy, now: date, withoutBlocking: true)
    }

    private func lookup(_ request: CacheRequest, policy: CachePolicy, now date: Date,
                        withoutBlocking: Bool) throws(CacheWouldBlock) -> CacheLookup {
        let now = date.timeIntervalSince1970
        let directives = policy == .useProtocol ? request.cacheControl : CacheControl(directives: [])
        let networkForbidden = policy == .returnCacheDontLoad || directives.contains("only-if-cached")
        let network: CacheLookup = networkForbidden ? .unavailable(.nothingStored) : .miss

        guard request.method == "GET", !request.isConditionalOrRanged else { return network }
        if policy == .reloadIgnoringCache { return .miss }
        if directives.contains("no-store") { return network }
        guard let urlKey = CacheKeys.url(request.keyURL), let partition = CacheKeys.partition(of: request) else { return network }

        let candidates = withoutBlocking ? try candidatesWithoutBlocking(urlKey: urlKey) : candidates(urlKey: urlKey)
        guard !candidates.isEmpty else { return network }
        guard let stored = try selected(from: candidates, urlKey: urlKey, partition: partition, request: request, now: now,
                                        withoutBlocking: withoutBlocking) else {
            // No variant for these selecting headers: the server may still name another (RFC 9111 section 4.3.1).
            guard !networkForbidden else { return .unavailable(.nothingStored) }
            let tags = Self.entityTags(of: candidates, partition: partition)
            return tags.isEmpty ? .miss : .needsValidation(CacheValidation(headers: [(name: "If-None-Match", value: tags)]))
        }

        let freshness = stored.freshness
        let fresh = freshness.isFresh(now: now) && !freshness.requiresValidation
        if policy == .returnCacheElseLoad || policy == .returnCacheDontLoad {
            return fresh ? .fresh(stored.served(now: now)) : .stale(stored.served(now: now), revalidation: nil)
        }

        // The request's own limits (RFC 9111 section 5.2.1); an invalid value is the strictest.
        let age = freshness.currentAge(now: now)
        var satisfiesRequest = !directives.contains("no-cache")
        switch directives.seconds("max-age") {
        case .value(let limit): if age > Double(limit) { satisfiesRequest = false }
        case .invalid, .noArgument: satisfiesRequest = false
        case .absent: break
        }
        if case .value(let margin) = directives.seconds("min-fresh"), freshness.lifetime < age + Double(margin) {
            satisfiesRequest = false
        }
        if fresh && satisfiesRequest { return .fresh(stored.served(now: now)) }

        let validation = Self.validation(for: stored)
        if !fresh && satisfiesRequest && !freshness.requiresValidation && !freshness.mustRevalidate {
            let staleness = freshness.staleness(now: now)
            switch directives.seconds("max-stale") {
            case .noArgument: return .stale(stored.served(now: now), revalidation: nil)
            case .value(let limit) where staleness <= Double(limit): return .stale(stored.served(now: now), revalidation: nil)
            default: break
            }
            if let window = freshness.staleWhileRevalidate, staleness <= Double(window), !networkForbidden {
                return .stale(stored.served(now: now), revalidation: validation)
            }
        }
        if networkForbidden { return .unavailable(.needsValidation) }
        return validation.headers.isEmpty ? .miss : .needsValidation(validation)
    }

    /// The preconditions that validate `stored` (RFC 9111 section 4.3.1).
    static func validation(for stored: StoredResponse) -> CacheValidation {
        var headers: CacheHeaderLines = []
        if let tag = stored.freshness.entityTag {
            headers.append((name: "If-None-Match", value: tag))
        }
        if let lastModified = stored.freshness.lastModified {
            headers.append((name: "If-Modified-Since", value: lastModified.text))
        }
        return CacheValidation(headers: headers)
    }

    /// The most entity-tags a request lists for the variants it does not select.
    static let maximumListedTags = 8

    /// The entity-tags of the variants stored with `partition`, most recent first, as one `If-None-Match` value.
    static func entityTags(of candidates: [Candidate], partition: SHA256Digest) -> String {
        var tags: [String] = []
        for candidate in candidates.sorted(by: { $0.summary.dateValue > $1.summary.dateValue })
        where candidate.summary.partition == partition {
            guard let tag = candidate.summary.entityTag, !tags.contains(tag) else { continue }
            tags.append(tag)
            if tags.count == maximumListedTags { break }
        }
        return tags.joined(separator: ", ")
    }
}
