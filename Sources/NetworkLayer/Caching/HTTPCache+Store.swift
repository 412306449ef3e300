import Foundation

extension HTTPCache {
    /// Records a final response the network gave for `request` (a 304 the cache asked for goes to
    /// ``freshen(notModified:for:requestTime:responseTime:now:)``).
    ///
    /// - An unsafe method's 2xx or 3xx invalidates (RFC 9111 section 4.4).
    /// - A HEAD's 200 updates the stored GET response it describes (RFC 9111 section 4.3.5).
    /// - A GET's response is stored when RFC 9111 section 3 allows it (see ``CacheRefusal``). On disk,
    ///   `Set-Cookie` and the request's secret headers are never written, and a response to an
    ///   authorized request goes there only if the request allows.
    @discardableResult
    func store(statusCode: Int, headers: CacheHeaderLines, body: Data, for request: CacheRequest,
               requestTime: Date, responseTime: Date) -> CacheStoreOutcome {
        let method = request.method
        guard Self.safeMethods.contains(method) else {
            let invalidated = invalidate(method: method, statusCode: statusCode, url: request.url,
                                         location: headers.firstValue(named: "location"),
                                         contentLocation: headers.firstValue(named: "content-location"))
            return invalidated ? .invalidated : .notStored(.method)
        }
        if method == "HEAD" {
            return updateFromHead(statusCode: statusCode, headers: headers, for: request,
                                  requestTime: requestTime.timeIntervalSince1970, responseTime: responseTime.timeIntervalSince1970)
        }
        guard method == "GET" else { return .notStored(.method) }
        guard tiers.contains(where: { $0.limit > 0 }) else { return .notStored(.disabled) }
        if statusCode == 206 { return .notStored(.partialContent) }
        guard (200...599).contains(statusCode), statusCode != 304 else { return .notStored(.status) }
        if request.cacheControl.contains("no-store") { return .notStored(.requestNoStore) }

        let requestSeconds = requestTime.timeIntervalSince1970, responseSeconds = responseTime.timeIntervalSince1970
        let freshness = CacheFreshness(statusCode: statusCode, headers: headers, requestTime: requestSeconds,
                                       responseTime: responseSeconds)
        let directives = freshness.cacheControl
        if directives.contains("must-understand") {
            guard CacheFreshness.understood.contains(statusCode) else { return .notStored(.status) }
        } else if directives.contains("no-store") {
            return .notStored(.responseNoStore)
        }
        let cacheable = directives.contains("public") || directives.contains("private") || directives.contains("max-age")
            || headers.contains(named: "expires") || CacheFreshness.heuristicallyCacheable.contains(statusCode)
        guard cacheable else { return .notStored(.notCacheable) }

        let varyNames: [String]
        switch CacheVary.names(headers.values(named: "vary")) {
        case .names(let names): varyNames = names
        case .star: return .notStored(.varyStar)
        case .unusable: return .notStored(.varyUnusable)
        }
        guard let urlKey = CacheKeys.url(request.keyURL), let partition = CacheKeys.partition(of: request),
              let variantKey = CacheKeys.variant(urlKey: urlKey, partition: partition, varyNames: varyNames, headers: request.headers)
        else { return .notStored(.storageFailure) }
        guard let (tier, lines) = placement(for: request, lines: Self.storedLines(headers, excludingAlso: freshness.noCacheFieldNames))
        else { return .notStored(.disabled) }

        let response = StoredResponse(urlKey: urlKey, partition: partition, variantKey: variantKey, varyNames: varyNames,
                                      statusCode: statusCode, headers: lines, body: body,
                                      requestTime: requestSeconds, responseTime: responseSeconds)
        guard response.cost <= tier.largestEntry else { return .notStored(.tooLarge) }

        // Variants under another Vary are obsolete; the oldest go beyond the per-URL bound.
        var siblings: [Candidate] = []
        for candidate in candidates(urlKey: urlKey) {
            let summary = candidate.summary
            if summary.varyNames != varyNames || (summary.variantKey == variantKey && candidate.tier !== tier) {
                candidate.tier.remove(urlKey: urlKey, variantKey: summary.variantKey)
            } else if summary.variantKey != variantKey {
                siblings.append(candidate)
            }
        }
        for candidate in siblings.sorted(by: { $0.summary.dateValue > $1.summary.dateValue }).dropFirst(Self.maximumVariantsPerURL - 1) {
            candidate.tier.remove(urlKey: urlKey, variantKey: candidate.summary.variantKey)
        }
        return tier.save(response, now: responseSeconds) ? .stored : .notStored(.storageFailure)
    }

    /// Forgets `url`, and the same-origin `Location` and `Content-Location`, after an unsafe method's 2xx or 3xx (RFC 9111 section 4.4).
    @discardableResult
    func invalidate(method: String, statusCode: Int, url: String, location: String?, contentLocation: String?) -> Bool {
        guard !Self.safeMethods.contains(method), (200...399).contains(statusCode) else { return false }
        removeAll(forURL: url)
        guard let target = URL(string: CacheRequest.keyURL(url)), let origin = Origin(target) else { return true }
        for reference in [location, contentLocation].compactMap({ $0 }) {
            let trimmed = reference.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, let resolved = URL(string: trimmed, relativeTo: target)?.absoluteURL,
                  Origin(resolved) == origin else { continue }
            removeAll(forURL: resolved.absoluteString)
        }
        return true
    }

    /// A HEAD's 200 updates the stored GET response when their validators and `Content-Length` match, else removes it (RFC 9111 section 4.3.5).
    private func updateFromHead(statusCode: Int, headers: CacheHeaderLines, for request: CacheRequest,
                                requestTime: Double, responseTime: Double) -> CacheStoreOutcome {
        guard statusCode == 200, let urlKey = CacheKeys.url(request.keyURL), let partition = CacheKeys.partition(of: request)
        else { return .notStored(.method) }
        let candidates = candidates(urlKey: urlKey)
        guard let stored = selected(from: candidates, urlKey: urlKey, partition: partition, request: request, now: responseTime),
              let tier = candidates.first(where: { $0.summary.variantKey == stored.variantKey })?.tier
        else { return .notStored(.method) }

        var matches = true
        if let tag = headers.firstValue(named: "etag"), tag != stored.headers.firstValue(named: "etag") { matches = false }
        if let date = headers.firstValue(named: "last-modified"), date != stored.headers.firstValue(named: "last-modified") {
            matches = false
        }
        if let length = headers.firstValue(named: "content-length") {
            let storedLength = stored.headers.firstValue(named: "content-length")
                ?? (stored.headers.contains(named: "content-encoding") ? nil : String(stored.body.count))
            if let storedLength, storedLength.trimmingCharacters(in: .whitespaces) != length.trimmingCharacters(in: .whitespaces) {
                matches = false
            }
        }
        guard matches else {
            tier.remove(urlKey: urlKey, variantKey: stored.variantKey)
            return .updated
        }
        var lines = Self.updated(stored.headers, with: headers)
        if tier.isPersistent { lines = lines.removing(names: Self.unpersistedFields.union(request.secretHeaderNames)) }
        tier.save(stored.replacing(headers: lines, requestTime: requestTime, responseTime: responseTime), now: responseTime)
        return .updated
    }
}
