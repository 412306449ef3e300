import Foundation

/// What RFC 9111 reads from a response's status and headers to decide freshness, reuse and
/// validation, computed when the response is stored or updated. Every number is bounded where it
/// enters (delta-seconds capped at 2^31, dates in years 0...9999); times are seconds since 1970.
struct CacheFreshness: Sendable {
    let cacheControl: CacheControl
    /// `Date`, or the time received when it has none or an invalid one (RFC 9110 section 6.6.1).
    let dateValue: Double
    /// `Age` (RFC 9111 section 5.1): the first line's first member; 0 when absent or not a number.
    let ageValue: Double
    /// How long the response is fresh, in seconds (RFC 9111 section 4.2.1).
    let lifetime: Double
    /// Whether ``lifetime`` is heuristic (RFC 9111 section 4.2.2) rather than explicit.
    let isHeuristic: Bool
    /// The age it had when received (RFC 9111 section 4.2.3's corrected_initial_age).
    let correctedInitialAge: Double
    let responseTime: Double
    /// Unqualified `no-cache` (or a malformed one): never reused without validation.
    let requiresValidation: Bool
    /// The header names a qualified `no-cache` lists (lowercased): not stored.
    let noCacheFieldNames: Set<String>
    /// `must-revalidate`: never served stale, not even on an error.
    let mustRevalidate: Bool
    /// `stale-if-error` (RFC 5861), in seconds.
    let staleIfError: Int64?
    /// `stale-while-revalidate` (RFC 5861), in seconds.
    let staleWhileRevalidate: Int64?
    /// The `ETag` when it is a valid entity-tag (RFC 9110 section 8.8.3).
    let entityTag: String?
    let lastModified: (text: String, seconds: Int64)?

    /// Statuses a response may be stored and heuristically freshened with without explicit
    /// freshness (RFC 9110 section 15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]
    /// Statuses whose caching requirements this cache implements (for `must-understand`).
    static let understood: Set<Int> = heuristicallyCacheable.union([302, 303, 307])
    static let heuristicLimit: Double = 86_400
    static let heuristicFraction = 0.1

    init(statusCode: Int, headers: CacheHeaderLines, requestTime: Double, responseTime: Double) {
        let requestTime = requestTime.isFinite ? requestTime : 0
        let responseTime = responseTime.isFinite ? responseTime : requestTime
        let cacheControl = CacheControl(lines: headers.values(named: "cache-control"))
        self.cacheControl = cacheControl
        self.responseTime = responseTime

        let date = headers.firstValue(named: "date").flatMap { HTTPDate.seconds(from: $0, now: responseTime) }
        dateValue = date.map(Double.init) ?? responseTime
        ageValue = headers.firstValue(named: "age").map(Self.age) ?? 0

        if let text = headers.firstValue(named: "last-modified"), let seconds = HTTPDate.seconds(from: text, now: responseTime) {
            lastModified = (text, seconds)
        } else {
            lastModified = nil
        }
        entityTag = headers.firstValue(named: "etag").flatMap(Self.validEntityTag)

        // max-age, else Expires minus Date, else a heuristic (s-maxage is for shared caches only).
        var lifetime: Double = 0
        var heuristic = false
        switch cacheControl.seconds("max-age") {
        case .value(let seconds):
            lifetime = Double(seconds)
        case .invalid, .noArgument:
            // Present but not a number: stale (RFC 9111 section 4.2.1), and Expires is still ignored.
            lifetime = 0
        case .absent:
            if let expires = headers.firstValue(named: "expires") {
                // An invalid date, "0" above all, is already expired (RFC 9111 section 5.3).
                if let seconds = HTTPDate.seconds(from: expires, now: responseTime) {
                    lifetime = max(0, Double(seconds) - dateValue)
                }
            } else if Self.heuristicallyCacheable.contains(statusCode) || cacheControl.contains("public")
                        || cacheControl.contains("private") {
                heuristic = true
                if let lastModified, Double(lastModified.seconds) < dateValue {
                    lifetime = min(Self.heuristicLimit, (dateValue - Double(lastModified.seconds)) * Self.heuristicFraction)
                }
            }
        }
        self.lifetime = min(max(lifetime, 0), Double(CacheControl.maximumDeltaSeconds))
        isHeuristic = heuristic

        // RFC 9111 section 4.2.3.
        let apparentAge = max(0, responseTime - dateValue)
        let responseDelay = max(0, responseTime - requestTime)
        correctedInitialAge = max(apparentAge, ageValue + responseDelay)

        var requiresValidation = false
        var noCacheFieldNames = Set<String>()
        for directive in cacheControl.directives where directive.name == "no-cache" {
            let names = directive.isMalformed ? [] : directive.argument.map(CacheControl.fieldNames) ?? []
            if names.isEmpty { requiresValidation = true } else { noCacheFieldNames.formUnion(names) }
        }
        self.requiresValidation = requiresValidation
        self.noCacheFieldNames = noCacheFieldNames
        mustRevalidate = cacheControl.contains("must-revalidate")
        if case .value(let seconds) = cacheControl.seconds("stale-if-error") { staleIfError = seconds } else { staleIfError = nil }
        if case .value(let seconds) = cacheControl.seconds("stale-while-revalidate") {
            staleWhileRevalidate = seconds
        } else {
            staleWhileRevalidate = nil
        }
    }

    /// The response's age at `now` (RFC 9111 section 4.2.3's current_age); a clock that went back
    /// does not make it younger.
    func currentAge(now: Double) -> Double {
        let resident = now.isFinite ? max(0, now - responseTime) : 0
        return correctedInitialAge + resident
    }

    func isFresh(now: Double) -> Bool {
        lifetime > currentAge(now: now)
    }

    func staleness(now: Double) -> Double {
        max(0, currentAge(now: now) - lifetime)
    }

    /// `Age` (RFC 9111 section 5.1): the first line's first member, `1*DIGIT`, capped at 2^31; anything else is 0.
    static func age(_ value: String) -> Double {
        var member = Substring(value)
        if let comma = member.firstIndex(of: ",") { member = member[..<comma] }
        if let semicolon = member.firstIndex(of: ";") { member = member[..<semicolon] }
        let trimmed = member.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        return CacheControl.deltaSeconds(trimmed).map(Double.init) ?? 0
    }

    /// `value` when it can validate the response: an entity-tag (RFC 9110 section 8.8.3) or an
    /// unquoted opaque value, sent back as received. `nil` when, sent back, it would not read as one
    /// member of `If-None-Match`.
    static func validEntityTag(_ value: String) -> String? {
        var bytes = Substring(value).utf8[...]
        if bytes.starts(with: "W/".utf8) { bytes = bytes.dropFirst(2) }
        guard bytes.first == UInt8(ascii: "\"") else {
            let opaque = bytes.allSatisfy { ($0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: ",")) || $0 >= 0x80 }
            return !bytes.isEmpty && opaque ? value : nil
        }
        guard bytes.count >= 2, bytes.last == UInt8(ascii: "\"") else { return nil }
        let inner = bytes.dropFirst().dropLast()
        guard inner.allSatisfy({ $0 == 0x21 || ($0 >= 0x23 && $0 <= 0x7E) || $0 >= 0x80 }) else { return nil }
        return value
    }

    /// The entity-tag without its weakness prefix, for the weak comparison (RFC 9110 section 8.8.3.2).
    static func opaqueTag(_ entityTag: String) -> Substring {
        entityTag.hasPrefix("W/") ? entityTag.dropFirst(2) : Substring(entityTag)
    }

    static func isStrong(_ entityTag: String) -> Bool {
        !entityTag.hasPrefix("W/")
    }
}
