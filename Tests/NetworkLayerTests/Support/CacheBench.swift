import Foundation
@testable import NetworkLayer

/// A response cache engine with a clock the test moves: responses are stored and requests looked
/// up at chosen seconds after ``start``, with dates written relative to it.
final class CacheBench: @unchecked Sendable {
    // @unchecked Sendable: `now` is only moved by the test that owns the bench, on its own task.
    let cache: HTTPCache
    /// The time the bench starts at: 14 November 2023, 22:13:20 UTC.
    static let start: Double = 1_700_000_000
    private(set) var now: Double = CacheBench.start

    init(cache: HTTPCache) {
        self.cache = cache
    }

    /// A bench over one memory tier.
    convenience init(memoryLimit: Int = 8 << 20) {
        self.init(cache: HTTPCache(tiers: [MemoryCacheStorage(limit: memoryLimit)]))
    }

    var date: Date { Date(timeIntervalSince1970: now) }

    /// Moves the clock forward.
    func advance(_ seconds: Double) { now += seconds }

    /// An HTTP date `offset` seconds from now.
    func httpDate(_ offset: Double = 0) -> String {
        HTTPDate.imfFixdate(Int64((now + offset).rounded(.down)))
    }

    static func get(url: String = "http://example.com/resource", headers: CacheHeaderLines = [],
                    secret: Set<String> = [], authorized: Bool = false, diskOptIn: Bool = false) -> CacheRequest {
        CacheRequest(method: "GET", url: url, headers: headers, secretHeaderNames: secret, hasAuthorization: authorized,
                     allowsDiskStorageWhenAuthorized: diskOptIn)
    }

    /// Stores a response received now (the request sent `delay` seconds earlier).
    @discardableResult
    func store(_ headers: CacheHeaderLines, status: Int = 200, body: String = "body",
               request: CacheRequest = CacheBench.get(), delay: Double = 0) -> CacheStoreOutcome {
        cache.store(statusCode: status, headers: headers, body: Data(body.utf8), for: request,
                    requestTime: Date(timeIntervalSince1970: now - delay), responseTime: date)
    }

    func lookup(_ request: CacheRequest = CacheBench.get(), policy: CachePolicy = .useProtocol) -> CacheLookup {
        cache.lookup(request, policy: policy, now: date)
    }

    /// A 304 received now for `request`.
    func freshen(_ headers: CacheHeaderLines, request: CacheRequest = CacheBench.get()) -> CacheRevalidation {
        cache.freshen(notModified: headers, for: request, requestTime: date, responseTime: date, now: date)
    }
}

/// What a lookup decided, in a form tests compare.
enum LookupKind: Equatable, CustomStringConvertible {
    case fresh, stale, staleRevalidating, validate([String]), miss, unavailable(CacheUnavailability)

    init(_ lookup: CacheLookup) {
        switch lookup {
        case .fresh: self = .fresh
        case .stale(_, let revalidation): self = revalidation == nil ? .stale : .staleRevalidating
        case .needsValidation(let validation): self = .validate(validation.headers.map { "\($0.name): \($0.value)" })
        case .miss: self = .miss
        case .unavailable(let reason): self = .unavailable(reason)
        }
    }

    var description: String {
        switch self {
        case .fresh: "fresh"
        case .stale: "stale"
        case .staleRevalidating: "stale, revalidating"
        case .validate(let headers): "validate \(headers)"
        case .miss: "miss"
        case .unavailable(let reason): "unavailable (\(reason))"
        }
    }

    /// Whether the lookup answers without the network.
    var isServed: Bool { self == .fresh || self == .stale || self == .staleRevalidating }
}

extension CacheLookup {
    var kind: LookupKind { LookupKind(self) }

    /// The response served without the network, if any.
    var served: CachedResponse? {
        switch self {
        case .fresh(let response), .stale(let response, _): response
        default: nil
        }
    }
}

extension CachedResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers.firstValue(named: name) }
}

/// A new empty directory under the temporary directory, for a disk cache.
func temporaryCacheDirectory(_ name: String = #function) -> URL {
    let safe = name.filter { $0.isLetter || $0.isNumber }
    return FileManager.default.temporaryDirectory.appendingPathComponent("nl-cache-\(safe)-\(UUID().uuidString)", isDirectory: true)
}
