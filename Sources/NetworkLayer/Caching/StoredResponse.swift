import Foundation

/// One stored response (a variant): what a cache tier keeps, in memory or in a file.
struct StoredResponse: Sendable {
    /// The digest of the URL it answers (``CacheKeys/url(_:)``).
    let urlKey: SHA256Digest
    /// The digest of the credentials of the request that got it (``CacheKeys/partition(of:)``).
    let partition: SHA256Digest
    /// The digest of the URL, the partition and the selecting header values (``CacheKeys/variant(urlKey:partition:varyNames:headers:)``).
    let variantKey: SHA256Digest
    let varyNames: [String]
    let statusCode: Int
    /// The header lines as stored (see ``HTTPCache``).
    let headers: CacheHeaderLines
    let body: Data
    /// When the request that got it (or last validated it) was sent, in seconds since 1970.
    let requestTime: Double
    let responseTime: Double
    let freshness: CacheFreshness
    /// ``headers`` without `Age`, made once when stored or read, not on every hit.
    let servedLines: CacheHeaderLines
    let servedBlock: [UInt8]

    init(urlKey: SHA256Digest, partition: SHA256Digest, variantKey: SHA256Digest, varyNames: [String],
         statusCode: Int, headers: CacheHeaderLines, body: Data, requestTime: Double, responseTime: Double) {
        self.urlKey = urlKey
        self.partition = partition
        self.variantKey = variantKey
        self.varyNames = varyNames
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.requestTime = requestTime
        self.responseTime = responseTime
        freshness = CacheFreshness(statusCode: statusCode, headers: headers, requestTime: requestTime, responseTime: responseTime)
        servedLines = headers.filter { !$0.name.equalsIgnoringASCIICase("age") }
        servedBlock = ResponseHeaders.block(servedLines)
    }

    /// The `Date` value used to tell the most recent of several stored responses.
    var dateValue: Double { freshness.dateValue }

    /// What a tier indexes about it without reading it.
    var summary: CacheVariantSummary {
        CacheVariantSummary(variantKey: variantKey, partition: partition, varyNames: varyNames,
                            dateValue: dateValue, entityTag: freshness.entityTag)
    }

    /// The response as served at `now`: its `Age` replaced by the current age (RFC 9111 section 4).
    func served(now: Double) -> CachedResponse {
        let age = Int64(min(freshness.currentAge(now: now), Double(CacheControl.maximumDeltaSeconds)))
        return CachedResponse(statusCode: statusCode, storedLines: servedLines, storedBlock: servedBlock, body: body, age: age)
    }

    /// A copy with other headers and times (a 304 or a HEAD updated it), or keyed for another variant.
    func replacing(headers: CacheHeaderLines? = nil, requestTime: Double? = nil, responseTime: Double? = nil,
                   variantKey: SHA256Digest? = nil, partition: SHA256Digest? = nil) -> StoredResponse {
        StoredResponse(urlKey: urlKey, partition: partition ?? self.partition, variantKey: variantKey ?? self.variantKey,
                       varyNames: varyNames, statusCode: statusCode, headers: headers ?? self.headers, body: body,
                       requestTime: requestTime ?? self.requestTime, responseTime: responseTime ?? self.responseTime)
    }

    /// What it costs a tier to keep: the body, the header text twice, and a fixed overhead per line
    /// and per entry, so that a flood of empty responses is bounded too.
    var cost: Int {
        headers.reduce(body.count + servedBlock.count + 512 + varyNames.reduce(0) { $0 + $1.utf8.count + 16 }) {
            $0 + $1.name.utf8.count + $1.value.utf8.count + 32
        }
    }
}

/// What a tier knows of a stored variant without reading its body: enough to select it.
struct CacheVariantSummary: Sendable {
    let variantKey: SHA256Digest
    let partition: SHA256Digest
    let varyNames: [String]
    let dateValue: Double
    let entityTag: String?
}

/// A stored response as the cache serves it.
struct CachedResponse: Sendable {
    let statusCode: Int
    /// The stored header lines without `Age`, and the same as a header block.
    private let storedLines: CacheHeaderLines
    private let storedBlock: [UInt8]
    let body: Data
    /// Its current age in seconds (RFC 9111 section 4.2.3), as its `Age` says.
    let age: Int64

    init(statusCode: Int, storedLines: CacheHeaderLines, storedBlock: [UInt8], body: Data, age: Int64) {
        self.statusCode = statusCode
        self.storedLines = storedLines
        self.storedBlock = storedBlock
        self.body = body
        self.age = age
    }

    /// The stored header lines, with `Age` set to ``age`` (last).
    var headers: CacheHeaderLines { storedLines + [(name: "Age", value: String(age))] }

    /// ``headers`` as the header block a response reads (`Name: value` lines, each ended by `\n`).
    var headerBlock: [UInt8] {
        var block = storedBlock
        block += "Age: \(age)\n".utf8
        return block
    }

    func storedValue(named name: String) -> String? { storedLines.firstValue(named: name) }
}
