import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Two processes share one disk cache directory (Tests/CacheProbe, a process of its own each).
@Suite("Disk cache shared between processes", .sharing)
struct DiskCacheProcessTests {
    struct Report: Decodable, Sendable {
        let stored: Int
        let served: Int
        let wrong: Int
    }

    static let probe = ProbeProcess(name: "CacheProbe", deadline: .seconds(300))

    @Test("What one process stores, another process serves, in a later run")
    func storeThenRead() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stored = try await Self.probe.run(["store", directory.path, "\(4 << 20)", "200"], as: Report.self)
        #expect(stored.stored == 200)
        let read = try await Self.probe.run(["read", directory.path, "\(4 << 20)", "200"], as: Report.self)
        #expect(read.served == 200 && read.wrong == 0)
    }

    @Test("A write waits for the directory's lock: while another holder has it, nothing is stored")
    func writesTakeTheLock() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskCacheStorage(directory: directory, limit: 1 << 20)
        let holder = open(directory.appendingPathComponent("lock").path, O_RDWR | O_CLOEXEC)
        try #require(holder >= 0)
        defer { close(holder) }
        #expect(flock(holder, LOCK_EX) == 0)
        let done = Counter()
        let writer = Thread {
            let cache = HTTPCache(tiers: [disk])
            let now = Date()
            cache.store(statusCode: 200, headers: [("Cache-Control", "max-age=60")], body: Data("x".utf8),
                        for: CacheRequest(method: "GET", url: "http://example.com/locked"), requestTime: now, responseTime: now)
            done.increment()
        }
        writer.start()
        try await Task.sleep(for: .seconds(2))
        #expect(done.value == 0, "the store finished while another holder had the lock")
        #expect(try diskEntryFiles(directory).isEmpty)
        flock(holder, LOCK_UN)
        for _ in 0..<500 where done.value == 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(done.value == 1)
        #expect(try diskEntryFiles(directory).count == 1)
    }

    @Test("Two processes and this one storing, reading and invalidating the same URLs at once: no wrong body, no damage, within the limit")
    func concurrentProcesses() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let limit = 96 << 10
        _ = try DiskCacheStorage(directory: directory, limit: limit)
        async let first = Self.probe.run(["churn", directory.path, "\(limit)", "1", "1500"], as: Report.self)
        async let second = Self.probe.run(["churn", directory.path, "\(limit)", "2", "1500"], as: Report.self)
        // This process takes part too, through a manager-sized instance of its own.
        let local = HTTPCache(tiers: [try DiskCacheStorage(directory: directory, limit: limit)])
        let now = Date()
        var localWrong = 0
        for index in 0..<600 {
            let request = CacheRequest(method: "GET", url: "http://example.com/shared/\(index % 40)")
            local.store(statusCode: 200, headers: [("Cache-Control", "max-age=3600")],
                        body: Data("body of \(request.url) ".utf8) + Data(count: index % 2000), for: request, requestTime: now, responseTime: now)
            if let served = local.lookup(request, policy: .useProtocol, now: now).served,
               !served.body.starts(with: Data("body of \(request.url) ".utf8)) {
                localWrong += 1
            }
        }
        let reports = try await [first, second]
        for report in reports {
            #expect(report.wrong == 0)
            #expect(report.stored > 100 && report.served > 0, "\(report)")
        }
        #expect(localWrong == 0)

        // Afterwards: every listed entry is whole and its URL's, every file is listed, within the limit.
        let reopened = try DiskCacheStorage(directory: directory, limit: limit)
        #expect(reopened.totalBytes <= limit)
        #expect(try diskEntryFiles(directory).count == reopened.count)
        let check = HTTPCache(tiers: [reopened])
        var served = 0
        for index in 0..<40 {
            let request = CacheRequest(method: "GET", url: "http://example.com/shared/\(index)")
            if let response = check.lookup(request, policy: .useProtocol, now: now).served {
                served += 1
                #expect(response.body.starts(with: Data("body of \(request.url) ".utf8)))
            }
        }
        #expect(served == reopened.count)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!names.contains { $0.hasPrefix(DiskCacheStorage.temporaryPrefix) }, "\(names)")
    }
}
