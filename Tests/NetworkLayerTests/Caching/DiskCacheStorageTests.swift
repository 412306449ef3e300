import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The disk tier: files and permissions, damage, limits, sharing a directory.
@Suite("Disk cache storage", .sharing)
struct DiskCacheStorageTests {
    /// A disk cache in a new temporary directory, removed when `body` ends.
    static func withDisk<T>(limit: Int = 1 << 20, _ name: String = #function,
                            _ body: (URL, DiskCacheStorage, CacheBench) throws -> T) throws -> T {
        let directory = temporaryCacheDirectory(name)
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskCacheStorage(directory: directory, limit: limit)
        return try body(directory, disk, CacheBench(cache: HTTPCache(tiers: [disk])))
    }

    static func get(_ index: Int) -> CacheRequest { CacheBench.get(url: "http://example.com/item/\(index)") }

    static func mode(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).map { $0.intValue & 0o777 } ?? -1
    }

    /// The one entry file, with its path.
    static func onlyEntry(_ directory: URL) throws -> URL {
        let names = try diskEntryFiles(directory)
        try #require(names.count == 1, "\(names)")
        return directory.appendingPathComponent(names[0])
    }

    @Test("The directory (every level it creates) is 0700, every file 0600; a response survives reopening")
    func permissionsAndPersistence() throws {
        let root = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("a/b/cache", isDirectory: true)
        let disk = try DiskCacheStorage(directory: directory, limit: 1 << 20)
        let bench = CacheBench(cache: HTTPCache(tiers: [disk]))
        #expect(bench.store(["Cache-Control": "max-age=1000"].lines, body: "persisted") == .stored)
        for path in [root.path, root.appendingPathComponent("a").path, root.appendingPathComponent("a/b").path, directory.path] {
            #expect(try Self.mode(path) == 0o700, "\(path)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(Set(names).isSuperset(of: ["lock", "index"]) && names.count == 3, "\(names)")
        for name in names { #expect(try Self.mode(directory.appendingPathComponent(name).path) == 0o600, "\(name)") }

        let reopened = CacheBench(cache: HTTPCache(tiers: [try DiskCacheStorage(directory: directory, limit: 1 << 20)]))
        #expect(try #require(reopened.lookup().served).text == "persisted")
        #expect(reopened.lookup().kind == .fresh)
    }

    @Test("An existing directory keeps its mode; a file in the directory's place is a clear error")
    func existingDirectory() throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        _ = try DiskCacheStorage(directory: directory, limit: 1000)
        #expect(try Self.mode(directory.path) == 0o750)
        let file = directory.appendingPathComponent("plain")
        try Data("x".utf8).write(to: file)
        #expect(throws: DiskCacheStorage.OpenError.self) { try DiskCacheStorage(directory: file, limit: 1000) }
    }

    @Test("A truncated entry file is a miss and is deleted", arguments: [0, 1, 8, 40, 200])
    func truncated(keep: Int) throws {
        try Self.withDisk { (directory, _, bench) throws in
            bench.store(["Cache-Control": "max-age=1000"].lines, body: String(repeating: "b", count: 300))
            let file = try Self.onlyEntry(directory)
            let data = try Data(contentsOf: file)
            try data.prefix(keep).write(to: file)
            #expect(bench.lookup().kind == .miss)
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test("A garbled byte anywhere in an entry file is a miss and the file is deleted")
    func garbled() throws {
        try Self.withDisk { (directory, _, bench) throws in
            var random = SeededRandom(seed: 7)
            for round in 0..<40 {
                bench.store(["Cache-Control": "max-age=1000", "X-Round": "\(round)"].lines, body: String(repeating: "b", count: 200))
                let file = try Self.onlyEntry(directory)
                var data = try Data(contentsOf: file)
                let at = Int.random(in: 0..<data.count, using: &random)
                data[at] ^= UInt8.random(in: 1...255, using: &random)
                try data.write(to: file)
                #expect(bench.lookup().kind == .miss, "byte \(at)")
                #expect(!FileManager.default.fileExists(atPath: file.path))
            }
        }
    }

    @Test("A response read once is answered from memory while its file is unchanged; a file changed in place, replaced or removed is read again")
    func decodedCopy() throws {
        try Self.withDisk { (directory, disk, bench) throws in
            bench.store(["Cache-Control": "max-age=1000"].lines, body: String(repeating: "b", count: 200))
            let file = try Self.onlyEntry(directory)
            // Nothing read yet: a lookup without blocking must go to the file.
            #expect(throws: CacheWouldBlock.self) { try bench.cache.lookupWithoutBlocking(CacheBench.get(), policy: .useProtocol, now: bench.date) }
            // A copy is only kept once the file's times are older than the clock tick of the read.
            Thread.sleep(forTimeInterval: 0.05)
            #expect(bench.lookup().kind == .fresh)
            let quick = try bench.cache.lookupWithoutBlocking(CacheBench.get(), policy: .useProtocol, now: bench.date)
            #expect(quick.kind == .fresh)
            #expect(try #require(quick.served).text == String(repeating: "b", count: 200))

            // Garbled in place (same inode, same size): the copy is not used, the file is read, found damaged, deleted.
            var data = try Data(contentsOf: file)
            data[data.count / 2] ^= 0x5A
            try data.write(to: file)
            #expect(throws: CacheWouldBlock.self) { try bench.cache.lookupWithoutBlocking(CacheBench.get(), policy: .useProtocol, now: bench.date) }
            #expect(bench.lookup().kind == .miss)
            #expect(!FileManager.default.fileExists(atPath: file.path))

            // Stored again, read (the copy kept), then the file removed behind its back: not served from memory.
            bench.store(["Cache-Control": "max-age=1000"].lines, body: "again")
            Thread.sleep(forTimeInterval: 0.05)
            #expect(try #require(bench.lookup().served).text == "again")
            #expect(try bench.cache.lookupWithoutBlocking(CacheBench.get(), policy: .useProtocol, now: bench.date).kind == .fresh)
            try FileManager.default.removeItem(at: try Self.onlyEntry(directory))
            #expect(throws: CacheWouldBlock.self) { try bench.cache.lookupWithoutBlocking(CacheBench.get(), policy: .useProtocol, now: bench.date) }
            #expect(bench.lookup().kind == .miss)

            // Another instance replacing the response: the copy is not used.
            bench.store(["Cache-Control": "max-age=1000"].lines, body: "first")
            Thread.sleep(forTimeInterval: 0.05)
            #expect(try #require(bench.lookup().served).text == "first")
            let other = CacheBench(cache: HTTPCache(tiers: [try DiskCacheStorage(directory: directory, limit: 1 << 20)]))
            other.store(["Cache-Control": "max-age=1000"].lines, body: "second")
            #expect(throws: CacheWouldBlock.self) { try bench.cache.lookupWithoutBlocking(CacheBench.get(), policy: .useProtocol, now: bench.date) }
            #expect(try #require(bench.lookup().served).text == "second")
            _ = disk
        }
    }

    @Test("Another entry's file renamed into a variant's place is a miss, not the other response")
    func swappedFiles() throws {
        try Self.withDisk { (directory, _, bench) throws in
            bench.store(["Cache-Control": "max-age=1000"].lines, body: "one", request: Self.get(1))
            let first = try Self.onlyEntry(directory)
            bench.store(["Cache-Control": "max-age=1000"].lines, body: "two", request: Self.get(2))
            let second = try #require(try diskEntryFiles(directory).first { $0 != first.lastPathComponent })
            try FileManager.default.removeItem(at: first)
            try FileManager.default.copyItem(at: directory.appendingPathComponent(second), to: first)
            #expect(bench.lookup(Self.get(1)).kind == .miss)
            #expect(try #require(bench.lookup(Self.get(2)).served).text == "two")
        }
    }

    @Test("A damaged index is rebuilt from the entry files; a torn last record is cut off")
    func damagedIndex() throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bench = CacheBench(cache: HTTPCache(tiers: [try DiskCacheStorage(directory: directory, limit: 1 << 20)]))
        for index in 0..<5 { bench.store(["Cache-Control": "max-age=1000"].lines, body: "body \(index)", request: Self.get(index)) }
        let index = directory.appendingPathComponent("index")
        var data = try Data(contentsOf: index)
        data[data.count / 2] ^= 0xFF
        try data.write(to: index)
        let rebuilt = CacheBench(cache: HTTPCache(tiers: [try DiskCacheStorage(directory: directory, limit: 1 << 20)]))
        for index in 0..<5 { #expect(try #require(rebuilt.lookup(Self.get(index)).served).text == "body \(index)") }

        // A crash in the middle of an append: the records before it stand.
        let whole = try Data(contentsOf: index)
        try (whole + Data([0x40, 0, 0, 0, 2, 1, 2])).write(to: index)
        let torn = try DiskCacheStorage(directory: directory, limit: 1 << 20)
        #expect(torn.count == 5)
        #expect(try Data(contentsOf: index) == whole, "the partial record is cut off, the rest kept as it was")
        try Data("garbage".utf8).write(to: index)
        #expect(try DiskCacheStorage(directory: directory, limit: 1 << 20).count == 5)
        try FileManager.default.removeItem(at: index)
        #expect(try DiskCacheStorage(directory: directory, limit: 1 << 20).count == 5)
    }

    @Test("Leftovers of a crash are deleted on opening: temporary files, unlisted and garbage entry files")
    func leftovers() throws {
        try Self.withDisk { (directory, _, bench) throws in
            bench.store(["Cache-Control": "max-age=1000"].lines)
            let junk = [".tmp-123abc", String(repeating: "a", count: 64) + ".nlc", "0123.nlc"]
            for name in junk { try Data("junk".utf8).write(to: directory.appendingPathComponent(name)) }
            let reopened = try DiskCacheStorage(directory: directory, limit: 1 << 20)
            #expect(reopened.count == 1)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            for name in junk { #expect(!names.contains(name), "\(name)") }
            #expect(CacheBench(cache: HTTPCache(tiers: [reopened])).lookup().kind == .fresh)
        }
    }

    @Test("limit 0 stores nothing, and opening with limit 0 empties what was stored")
    func limitZero() throws {
        try Self.withDisk(limit: 0) { (directory, _, bench) throws in
            #expect(bench.store(["Cache-Control": "max-age=1000"].lines) == .notStored(.disabled))
            #expect(try diskEntryFiles(directory).isEmpty)
        }
        try Self.withDisk { (directory, _, bench) throws in
            bench.store(["Cache-Control": "max-age=1000"].lines)
            #expect(try diskEntryFiles(directory).count == 1)
            _ = try DiskCacheStorage(directory: directory, limit: 0)
            #expect(try diskEntryFiles(directory).isEmpty)
        }
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try #require(try HTTPCache.make(.disk(directory: directory, limit: 0)))
        #expect(CacheBench(cache: cache).store(["Cache-Control": "max-age=1000"].lines) == .notStored(.disabled))
    }

    /// The bytes of the files in `directory`.
    static func directorySize(_ directory: URL) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).reduce(0) { total, name in
            total + ((try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    @Test("10,000 distinct URLs into a 1 MB disk cache stay within 1 MB on disk, the most recent kept")
    func tenThousandURLs() throws {
        try Self.withDisk(limit: 1 << 20) { (directory, disk, bench) throws in
            for index in 0..<10_000 {
                bench.store(["Cache-Control": "max-age=1000"].lines, body: String(repeating: "x", count: (index * 131) % 2000),
                            request: Self.get(index))
                if index % 500 == 0 {
                    #expect(disk.totalBytes <= 1 << 20)
                    #expect(try Self.directorySize(directory) <= 1 << 20)
                }
            }
            #expect(disk.totalBytes <= 1 << 20)
            #expect(try Self.directorySize(directory) <= 1 << 20)
            #expect(disk.count > 100)
            #expect(bench.lookup(Self.get(9_999)).kind == .fresh)
            #expect(bench.lookup(Self.get(0)).kind == .miss)
        }
    }

    @Test("A response used recently survives eviction; one never used goes")
    func leastRecentlyUsedOnDisk() throws {
        try Self.withDisk(limit: 64 << 10) { (_, _, bench) throws in
            bench.store(["Cache-Control": "max-age=100000"].lines, body: String(repeating: "k", count: 1000), request: Self.get(0))
            bench.store(["Cache-Control": "max-age=100000"].lines, body: String(repeating: "k", count: 1000), request: Self.get(1))
            for index in 2..<200 {
                bench.advance(1)
                #expect(bench.lookup(Self.get(0)).kind == .fresh, "kept at \(index)")
                bench.store(["Cache-Control": "max-age=100000"].lines, body: String(repeating: "v", count: 1000), request: Self.get(index))
            }
            #expect(bench.lookup(Self.get(1)).kind == .miss)
        }
    }

    @Test("Two instances on one directory see each other's stores and removals, and a smaller limit shrinks it")
    func twoInstances() throws {
        try Self.withDisk { (directory, first, bench) throws in
            let second = try DiskCacheStorage(directory: directory, limit: 1 << 20)
            let other = CacheBench(cache: HTTPCache(tiers: [second]))
            bench.store(["Cache-Control": "max-age=1000"].lines, body: "from the first", request: Self.get(1))
            #expect(try #require(other.lookup(Self.get(1)).served).text == "from the first")
            other.store(["Cache-Control": "max-age=1000"].lines, body: "from the second", request: Self.get(1))
            #expect(try #require(bench.lookup(Self.get(1)).served).text == "from the second")
            other.cache.removeAll(forURL: Self.get(1).url)
            #expect(bench.lookup(Self.get(1)).kind == .miss)
            for index in 0..<50 { bench.store(["Cache-Control": "max-age=1000"].lines, body: String(repeating: "z", count: 500), request: Self.get(index)) }
            _ = try DiskCacheStorage(directory: directory, limit: 8_000)
            #expect(first.totalBytes <= 8_000)
            first.removeAll()
            #expect(second.count == 0)
        }
    }

    @Test("Two instances storing and reading the same URLs from many threads never serve a wrong or damaged body")
    func concurrentInstances() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let caches = try (0..<2).map { _ in HTTPCache(tiers: [try DiskCacheStorage(directory: directory, limit: 256 << 10)]) }
        let now = Date(timeIntervalSince1970: CacheBench.start)
        let wrong = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    var wrong = 0
                    let cache = caches[worker % 2]
                    for index in 0..<300 {
                        let request = Self.get(index % 40)
                        let body = Data("body of \(request.url) ".utf8) + Data(repeating: UInt8(worker), count: index % 3000)
                        cache.store(statusCode: 200, headers: ["Cache-Control": "max-age=1000"].lines, body: body, for: request,
                                    requestTime: now, responseTime: now)
                        if let served = cache.lookup(request, policy: .useProtocol, now: now).served,
                           !served.body.starts(with: Data("body of \(request.url) ".utf8)) {
                            wrong += 1
                        }
                        if index % 50 == 0 { cache.removeAll(forURL: Self.get(index % 40 + 1).url) }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
        let reopened = try DiskCacheStorage(directory: directory, limit: 256 << 10)
        #expect(reopened.totalBytes <= 256 << 10)
        let check = HTTPCache(tiers: [reopened])
        for index in 0..<40 {
            if let served = check.lookup(Self.get(index), policy: .useProtocol, now: now).served {
                #expect(served.body.starts(with: Data("body of \(Self.get(index).url) ".utf8)))
            }
        }
        #expect(try Self.directorySize(directory) <= 256 << 10)
    }
}
