import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The log tells where each response came from, and a HIT shows no request going out.
@Suite("The log marks HIT, REVALIDATED, MISS and STALE", .sharing)
struct LiveCacheLogTests {
    @Test("The response line ends with the cache's mark; a HIT's attempt line says it was not sent, without a curl line")
    func textLog() async throws {
        try await withCacheServer { server in
            try await server.configure("/fresh", ["headers": [["Cache-Control", "max-age=600"]]])
            try await server.configure("/aging", ["headers": [["Cache-Control", "max-age=1"]], "etag": "\"l\""])
            let log = LogCollector()
            let net = makeCachingManager(log: log)
            _ = try await net.text(server, "/fresh")
            _ = try await net.text(server, "/fresh")
            _ = try await net.text(server, "/aging")
            try await Task.sleep(for: .seconds(1.6))
            _ = try await net.text(server, "/aging", headers: ["Cache-Control": "max-stale=600"])
            _ = try await net.text(server, "/aging")
            let entries = log.all
            let responses = entries.filter { $0.contains("] ← ") }.map { String($0.split(separator: "\n")[0]) }
            let attempts = entries.filter { $0.contains("] → ") }
            #expect(responses.count == 5 && attempts.count == 5)
            let marks = responses.map { line in ["[MISS]", "[HIT]", "[STALE]", "[REVALIDATED]"].first { line.hasSuffix(" " + $0) } ?? "none" }
            #expect(marks == ["[MISS]", "[HIT]", "[MISS]", "[STALE]", "[REVALIDATED]"])
            #expect(attempts[0].contains("$ curl") && !attempts[0].contains("from the cache"))
            #expect(attempts[1].contains("(answered from the cache: HIT, not sent)") && !attempts[1].contains("$ curl"))
            #expect(attempts[3].contains("(answered from the cache: STALE, not sent)"))
            #expect(attempts[4].contains("If-None-Match: \"l\""), "the revalidation shows what went out")
        }
    }

    @Test("Log entries carry the cache status of each response; without a cache there is no mark")
    func entries() async throws {
        try await withCacheServer { server in
            try await server.configure("/entries", ["headers": [["Cache-Control", "max-age=600"]]])
            let collected = LogEntryCollector()
            let net = makeCachingManager(entries: collected)
            _ = try await net.text(server, "/entries")
            _ = try await net.text(server, "/entries")
            let responses = collected.all.filter { $0.phase == .response && $0.level == .info }
            #expect(responses.map(\.cacheStatus) == [.miss, .hit])
            #expect(responses.last?.message.hasSuffix("[HIT]") == true)
            let requests = collected.all.filter { $0.phase == .request && $0.level == .info }
            #expect(requests.count == 2 && requests[1].message.contains("not sent"))

            let plainLog = LogCollector()
            _ = try await makeManager(log: plainLog).text(server, "/entries")
            #expect(!plainLog.text.contains("[MISS]") && !plainLog.text.contains("[HIT]"))
        }
    }

    @Test("Copy-as-curl is unchanged by the cache: the request as built, without validators")
    func copyAsCurl() async throws {
        try await withCacheServer { server in
            try await server.configure("/curl", ["headers": [["Cache-Control", "max-age=0"]], "etag": "\"c\""])
            let net = makeCachingManager()
            let before = try await net.curlCommand(for: CachedText(server, "/curl"))
            _ = try await net.text(server, "/curl")
            let after = try await net.curlCommand(for: CachedText(server, "/curl"))
            #expect(before == after && !after.contains("If-None-Match"))
            #expect(try await makeManager().curlCommand(for: CachedText(server, "/curl")) == after)
        }
    }
}
