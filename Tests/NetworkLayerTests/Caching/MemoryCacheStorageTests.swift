import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The memory tier: bounded by its limit under any load, least recently used evicted first.
@Suite("Memory cache storage", .sharing)
struct MemoryCacheStorageTests {
    static func response(_ url: String, bodySize: Int = 100, headers: CacheHeaderLines = [("Cache-Control", "max-age=1000")]) -> StoredResponse {
        let urlKey = CacheKeys.url(url)!, partition = CacheKeys.partition(of: CacheBench.get(url: url))!
        let variantKey = CacheKeys.variant(urlKey: urlKey, partition: partition, varyNames: [], headers: [])!
        return StoredResponse(urlKey: urlKey, partition: partition, variantKey: variantKey, varyNames: [], statusCode: 200,
                              headers: headers, body: Data(repeating: 0x61, count: bodySize), requestTime: 0, responseTime: 0)
    }

    static func isStored(_ storage: MemoryCacheStorage, _ url: String) -> Bool {
        let response = response(url)
        return storage.load(urlKey: response.urlKey, variantKey: response.variantKey, now: 0) != nil
    }

    @Test("The least recently used response goes first; a lookup makes a response recent")
    func leastRecentlyUsedFirst() {
        let one = Self.response("http://h/1").cost
        let storage = MemoryCacheStorage(limit: one * 4)
        for index in 1...3 { storage.save(Self.response("http://h/\(index)"), now: 0) }
        #expect(Self.isStored(storage, "http://h/1"))
        storage.save(Self.response("http://h/4"), now: 0)
        storage.save(Self.response("http://h/5"), now: 0)
        #expect(Self.isStored(storage, "http://h/1"), "used recently: kept")
        #expect(!Self.isStored(storage, "http://h/2"), "least recently used: evicted")
        #expect(Self.isStored(storage, "http://h/3") && Self.isStored(storage, "http://h/4") && Self.isStored(storage, "http://h/5"))
        #expect(storage.totalCost <= storage.limit)
    }

    @Test("Eviction is by size: one large response pushes out as many small ones as it needs")
    func bySize() {
        let small = Self.response("http://h/s0", bodySize: 100).cost
        let storage = MemoryCacheStorage(limit: small * 40)
        for index in 0..<40 { storage.save(Self.response("http://h/s\(index)", bodySize: 100), now: 0) }
        #expect(storage.count == 40)
        #expect(storage.save(Self.response("http://h/large", bodySize: small * 9), now: 0))
        #expect(storage.totalCost <= storage.limit)
        #expect(storage.count <= 31 && storage.count >= 29)
        #expect(!Self.isStored(storage, "http://h/s0") && Self.isStored(storage, "http://h/s39"))
    }

    @Test("The tier itself refuses a response costing more than a quarter of its limit")
    func quarterOfLimit() {
        let small = Self.response("http://h/small", bodySize: 100)
        let storage = MemoryCacheStorage(limit: small.cost * 4 + 3)
        #expect(storage.save(small, now: 0))
        #expect(!storage.save(Self.response("http://h/large", bodySize: 101), now: 0))
        #expect(storage.count == 1)
    }

    @Test("10,000 distinct URLs into a 1 MB cache stay within 1 MB, with the newest kept")
    func tenThousandURLs() {
        let bench = CacheBench(memoryLimit: 1 << 20)
        let storage = bench.cache.tiers[0] as! MemoryCacheStorage
        for index in 0..<10_000 {
            bench.store(["Cache-Control": "max-age=1000"].lines, body: String(repeating: "x", count: index % 3000),
                        request: CacheBench.get(url: "http://example.com/\(index)"))
            #expect(storage.totalCost <= 1 << 20)
        }
        #expect(bench.lookup(CacheBench.get(url: "http://example.com/9999")).kind == .fresh)
        #expect(bench.lookup(CacheBench.get(url: "http://example.com/0")).kind == .miss)
    }

    @Test("Bounded under concurrent stores, loads and removals from many threads; empty responses count too")
    func concurrent() async {
        let storage = MemoryCacheStorage(limit: 200_000)
        let cache = HTTPCache(tiers: [storage])
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<2_000 {
                        let request = CacheBench.get(url: "http://example.com/\(worker)/\(index % 500)")
                        let now = Date(timeIntervalSince1970: CacheBench.start)
                        cache.store(statusCode: 200, headers: ["Cache-Control": "max-age=100"].lines,
                                    body: Data(count: (index * 37) % 5_000), for: request, requestTime: now, responseTime: now)
                        _ = cache.lookup(request, policy: .useProtocol, now: now)
                        if index % 97 == 0 { cache.removeAll(forURL: request.url) }
                        #expect(storage.totalCost <= storage.limit)
                    }
                }
            }
        }
        #expect(storage.totalCost <= storage.limit)
        #expect(storage.count > 0)
        let emptyCost = Self.response("http://h/e", bodySize: 0).cost
        #expect(emptyCost >= 512, "an empty response still costs its overhead")
        storage.removeAll()
        #expect(storage.totalCost == 0 && storage.count == 0)
    }
}
