import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A disk cache through `Net`: shared by processes, opened off the cooperative pool, a directory
/// that cannot be opened failing requests clearly.
@Suite("Disk cache through the pipeline", .sharing)
struct LiveDiskCacheTests {
    struct Outcome: Decodable, Sendable {
        let status: String
        let body: String
    }

    @Test("Run twice in two processes sharing a disk cache: the second is served without the server seeing a request")
    func twoProcesses() async throws {
        try await withCacheServer { server in
            try await server.configure("/shared", ["headers": [["Cache-Control", "max-age=600"]], "body": "shared {count}"])
            let directory = temporaryCacheDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let arguments = ["net", directory.path, "\(4 << 20)", server.url("/shared")]
            let first = try await DiskCacheProcessTests.probe.run(arguments, as: Outcome.self)
            let second = try await DiskCacheProcessTests.probe.run(arguments, as: Outcome.self)
            #expect(first.status == "miss" && first.body == "shared 1")
            #expect(second.status == "hit" && second.body == "shared 1")
            #expect(try await server.hits("/shared") == 1)
        }
    }

    @Test("A cache directory that cannot be created fails each request with .invalidRequest saying why; nothing is sent")
    func unopenableDirectory() async throws {
        try await withCacheServer { server in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("nl-cache-file-\(UUID().uuidString)")
            try Data("not a directory".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let net = makeCachingManager(.disk(directory: file, limit: 1 << 20))
            let error = await #expect(throws: NetworkError.self) { try await net.text(server, "/unsent") }
            guard case .invalidRequest? = error else { Issue.record("not .invalidRequest: \(String(describing: error))"); return }
            #expect(error?.errorDescription?.contains("the response cache could not be opened") == true)
            #expect(error?.errorDescription?.contains(file.path) == true)
            #expect(error?.errorDescription?.contains("Net.cache = .none") == true)
            #expect(try await server.hits("/unsent") == 0)
            net.cache = .none
            #expect(try await net.text(server, "/unsent").status == nil)
        }
    }

    @Test("A disk cache's work runs on its own queue; a memory cache's inline")
    func workRunsOffThePool() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try #require(ResponseCacheStore(.disk(directory: directory, limit: 1 << 20)))
        let memory = try #require(ResponseCacheStore(.memory(limit: 1 << 20)))
        let mark = QueueMark(try #require(disk.queue))
        let onQueue = try await disk.perform { _ in mark.isCurrent }
        let inline = try await memory.perform { _ in mark.isCurrent }
        #expect(onQueue && !inline && memory.queue == nil)
        #expect(ResponseCacheStore(.none) == nil)
    }

    @Test("Setting the same cache again keeps what it holds; another setting starts a new cache")
    func settingAgain() async throws {
        try await withCacheServer { server in
            try await server.configure("/kept", ["headers": [["Cache-Control", "max-age=600"]]])
            let net = makeCachingManager(.memory(limit: 1 << 20))
            _ = try await net.text(server, "/kept")
            net.cache = .memory(limit: 1 << 20)
            let kept = try await net.text(server, "/kept")
            net.cache = .memory(limit: 2 << 20)
            let fresh = try await net.text(server, "/kept")
            #expect(kept.status == .hit && fresh.status == .miss)
        }
    }
}
