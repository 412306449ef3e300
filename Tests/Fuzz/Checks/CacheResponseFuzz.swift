import Foundation
@testable import NetworkLayer

/// The response cache fed a hostile response: header lines built from the input (`Cache-Control`,
/// `Date`, `Expires`, `Age`, `Last-Modified`, `ETag`, `Vary`, `Connection`, ... with numbers of any
/// size, dates well formed or not, lists, any bytes), any status, times anywhere from 1900 to 9999,
/// then stored, looked up under each policy, revalidated with a 304, served after an error,
/// invalidated.
///
/// Checked: nothing traps; every number is bounded (freshness lifetime 0...2^31 s, ages finite
/// and ≥ 0, an `Age` header exactly once, equal to the age); a response served is the one stored
/// (status and body); the memory tier stays within its limit; an HTTP date written for the input's
/// instant reads back as it; the selecting value of a header normalises to itself.
enum CacheResponseFuzz {
    private static let names = ["Cache-Control", "Date", "Expires", "Age", "Last-Modified", "ETag", "Vary", "Connection",
                                "Content-Length", "Content-Encoding", "Set-Cookie", "Location", "Content-Location", "X-A", "foo"]
    private static let words = ["max-age=", "s-maxage=", "no-cache", "no-store", "must-revalidate", "public", "private",
                                "stale-if-error=", "stale-while-revalidate=", "must-understand", "immutable", "*", ",", ", ",
                                "\"", "=", ";", " ", "W/", "0", "1", "-", ".", "e9", "99999999999999999999", "2147483648",
                                "GMT", "Thu, 01 Jan 1970 00:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
                                "foo", "Foo", "x-a", "\u{0}", "é"]

    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        let statuses = [200, 203, 204, 206, 300, 301, 304, 404, 410, 500, 503, 599, 100, 0, -5, 1000]
        let status = statuses[bytes.choice(statuses.count)]
        let base = -2_208_988_800 + Double(bytes.word() % 253_402_300_800)
        let delay = Double(bytes.choice(1000)) - 100
        var headers: CacheHeaderLines = []
        for _ in 0..<bytes.choice(12) {
            headers.append((name: names[bytes.choice(names.count)], value: value(&bytes)))
        }
        var requestHeaders: CacheHeaderLines = []
        for _ in 0..<bytes.choice(4) {
            requestHeaders.append((name: ["Cache-Control", "Foo", "X-A", "Authorization"][bytes.choice(4)], value: value(&bytes)))
        }

        // Freshness facts are bounded whatever the headers say.
        let freshness = CacheFreshness(statusCode: status, headers: headers, requestTime: base - delay, responseTime: base)
        try require(freshness.lifetime >= 0 && freshness.lifetime <= Double(CacheControl.maximumDeltaSeconds),
                    "lifetime \(freshness.lifetime) for \(headers)")
        try require(freshness.correctedInitialAge.isFinite && freshness.correctedInitialAge >= 0, "initial age \(freshness.correctedInitialAge)")
        for later in [0.0, 1, 1e6, 1e12, -1e12, .infinity, .nan] {
            let age = freshness.currentAge(now: base + later)
            try require(age.isFinite && age >= 0 && freshness.staleness(now: base + later) >= 0, "age \(age) at +\(later)")
        }

        // An instant written as an IMF-fixdate reads back as itself.
        let instant = Int64(base.rounded(.down))
        try require(HTTPDate.seconds(from: HTTPDate.imfFixdate(instant), now: base) == instant, "date \(instant) did not round-trip")

        for line in requestHeaders {
            if let normalised = CacheVary.selectingValue(of: line.name, in: requestHeaders) {
                try require(CacheVary.selectingValue(of: "v", in: [("v", normalised)]) == normalised, "\(normalised.debugDescription) not stable")
            }
        }

        // The engine, end to end.
        let storage = MemoryCacheStorage(limit: 64 << 10)
        let cache = HTTPCache(tiers: [storage])
        let request = CacheRequest(method: "GET", url: "http://example.com/r", headers: requestHeaders)
        let body = Data(bytes.take(bytes.choice(300)))
        let start = Date(timeIntervalSince1970: base)
        let outcome = cache.store(statusCode: status, headers: headers, body: body, for: request,
                                  requestTime: Date(timeIntervalSince1970: base - delay), responseTime: start)
        try require(storage.totalCost <= storage.limit, "memory \(storage.totalCost) over \(storage.limit)")
        for policy in [CachePolicy.useProtocol, .reloadIgnoringCache, .returnCacheElseLoad, .returnCacheDontLoad] {
            for later in [0.0, 5, 1e9] {
                let lookup = cache.lookup(request, policy: policy, now: start.addingTimeInterval(later))
                switch lookup {
                case .fresh(let served), .stale(let served, _):
                    try require(outcome == .stored, "served \(served.statusCode) though the store said \(outcome)")
                    try checkServed(served, status: status, body: body)
                case .needsValidation(let validation):
                    try require(policy != .reloadIgnoringCache && policy != .returnCacheDontLoad, "validation under \(policy)")
                    try require(validation.headers.allSatisfy { $0.name == "If-None-Match" || $0.name == "If-Modified-Since" },
                                "\(validation.headers)")
                case .miss:
                    try require(policy != .returnCacheDontLoad, "a miss under returnCacheDontLoad")
                case .unavailable:
                    break
                }
            }
        }
        let notModified = headers.filter { _ in bytes.bool() }
        if case .revalidated(let served) = cache.freshen(notModified: notModified, for: request, requestTime: start, responseTime: start,
                                                         now: start) {
            try checkServed(served, status: status, body: body)
        }
        if let stale = cache.staleResponse(for: request, policy: .useProtocol, after: .status(503), now: start.addingTimeInterval(60)) {
            try checkServed(stale, status: status, body: body)
        }
        _ = cache.store(statusCode: status, headers: headers, body: body,
                        for: CacheRequest(method: "POST", url: "http://example.com/r"), requestTime: start, responseTime: start)
        try require(storage.totalCost <= storage.limit, "memory over the limit")
    }

    private static func checkServed(_ served: CachedResponse, status: Int, body: Data) throws(FuzzFailure) {
        try require(served.statusCode == status && served.body == body, "served \(served.statusCode) with another body")
        let ages = served.headers.values(named: "age")
        try require(ages == [String(served.age)] && served.age >= 0 && served.age <= CacheControl.maximumDeltaSeconds,
                    "Age lines \(ages) for age \(served.age)")
    }

    /// A header value: words and numbers from the input.
    private static func value(_ bytes: inout FuzzBytes) -> String {
        var text = ""
        for _ in 0..<bytes.choice(6) {
            switch bytes.choice(4) {
            case 0: text += String(bytes.word() % 100_000)
            case 1: text += String(decoding: bytes.take(bytes.choice(8)), as: UTF8.self)
            default: text += words[bytes.choice(words.count)]
            }
        }
        return text
    }
}
