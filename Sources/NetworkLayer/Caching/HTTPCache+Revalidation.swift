import Foundation

extension HTTPCache {
    /// Applies a `304 Not Modified` the cache asked for to the stored responses it selects, and
    /// gives the response to serve; any other 304 passes through as it would without a cache.
    ///
    /// - Selection by a strong `ETag`, else a weak one, else the request's own variant (RFC 9111 section 4.3.4); no match is `.noMatch`.
    /// - Each selected response gets the 304's fields, except those never updated (RFC 9111 section 3.2).
    /// - A 304 whose fields now say `no-store` is still served, and the response removed.
    func freshen(notModified headers: CacheHeaderLines, for request: CacheRequest, requestTime: Date, responseTime: Date,
                 now date: Date) -> CacheRevalidation {
        let now = date.timeIntervalSince1970
        let requestSeconds = requestTime.timeIntervalSince1970, responseSeconds = responseTime.timeIntervalSince1970
        guard let urlKey = CacheKeys.url(request.keyURL), let partition = CacheKeys.partition(of: request) else { return .noMatch }
        let candidates = candidates(urlKey: urlKey).filter { $0.summary.partition == partition }
        guard !candidates.isEmpty else { return .noMatch }
        let own = selected(from: candidates, urlKey: urlKey, partition: partition, request: request, now: now)

        var chosen: [Candidate]
        if let tag = headers.firstValue(named: "etag").flatMap(CacheFreshness.validEntityTag) {
            if CacheFreshness.isStrong(tag) {
                chosen = candidates.filter { $0.summary.entityTag == tag }
            } else {
                let opaque = CacheFreshness.opaqueTag(tag)
                chosen = candidates.filter { $0.summary.entityTag.map(CacheFreshness.opaqueTag) == opaque }
                    .sorted { $0.summary.dateValue > $1.summary.dateValue }
                chosen = Array(chosen.prefix(1))
            }
        } else if let own {
            chosen = candidates.filter { $0.summary.variantKey == own.variantKey }
        } else {
            chosen = candidates.count == 1 ? candidates : []
        }
        guard !chosen.isEmpty else { return .noMatch }

        var served: StoredResponse?
        let ownFirst = chosen.sorted { lhs, rhs in
            if lhs.summary.variantKey == own?.variantKey { return true }
            if rhs.summary.variantKey == own?.variantKey { return false }
            return lhs.summary.dateValue > rhs.summary.dateValue
        }
        for candidate in ownFirst {
            let stored = candidate.summary.variantKey == own?.variantKey ? own
                : candidate.tier.load(urlKey: urlKey, variantKey: candidate.summary.variantKey, now: now)
            guard let stored else { continue }
            if let lastModified = headers.firstValue(named: "last-modified"), headers.firstValue(named: "etag") == nil,
               let storedLastModified = stored.headers.firstValue(named: "last-modified"), lastModified != storedLastModified {
                continue
            }
            var lines = Self.updated(stored.headers, with: headers)
            if candidate.tier.isPersistent { lines = lines.removing(names: Self.unpersistedFields.union(request.secretHeaderNames)) }
            let updated = stored.replacing(headers: lines, requestTime: requestSeconds, responseTime: responseSeconds)
            if updated.freshness.cacheControl.contains("no-store") && !updated.freshness.cacheControl.contains("must-understand") {
                candidate.tier.remove(urlKey: urlKey, variantKey: stored.variantKey)
            } else {
                candidate.tier.save(updated, now: now)
            }
            if served == nil { served = updated }
        }
        guard let served else { return .noMatch }

        // Selected through another variant's entity-tag: it is also this request's variant now.
        if served.variantKey != own?.variantKey, !served.freshness.cacheControl.contains("no-store"),
           let variantKey = CacheKeys.variant(urlKey: urlKey, partition: partition, varyNames: served.varyNames, headers: request.headers),
           let (tier, lines) = placement(for: request, lines: served.headers) {
            let copy = served.replacing(headers: lines, variantKey: variantKey)
            if copy.cost <= tier.largestEntry { tier.save(copy, now: now) }
        }
        return .revalidated(served.served(now: now))
    }

    /// A stored response that may answer `request` although stale, after a transport failure or a
    /// 500, 502, 503 or 504, as `stale-if-error` (RFC 5861 section 4) allows; never with
    /// `must-revalidate` or `no-cache`, nor under `.reloadIgnoringCache`. `nil` when none may be.
    func staleResponse(for request: CacheRequest, policy: CachePolicy, after failure: CacheFailure, now date: Date) -> CachedResponse? {
        let now = date.timeIntervalSince1970
        switch failure {
        case .transport: break
        case .status(let status) where [500, 502, 503, 504].contains(status): break
        case .status: return nil
        }
        guard policy == .useProtocol || policy == .returnCacheElseLoad, request.method == "GET",
              let urlKey = CacheKeys.url(request.keyURL), let partition = CacheKeys.partition(of: request),
              let stored = selected(from: candidates(urlKey: urlKey), urlKey: urlKey, partition: partition, request: request, now: now)
        else { return nil }
        let freshness = stored.freshness
        guard !freshness.requiresValidation, !freshness.mustRevalidate else { return nil }
        let staleness = freshness.staleness(now: now)
        var windows: [Int64] = freshness.staleIfError.map { [$0] } ?? []
        if policy == .useProtocol, case .value(let seconds) = request.cacheControl.seconds("stale-if-error") { windows.append(seconds) }
        guard windows.contains(where: { staleness <= Double($0) }) else { return nil }
        return stored.served(now: now)
    }
}
