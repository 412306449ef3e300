import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The cache is a step of every hop: redirects are followed from the cache, and each hop is
/// stored under its own URL.
@Suite("Redirects through the cache", .sharing)
struct LiveCacheRedirectTests {
    @Test("A cached 301 or 308 is followed from the cache; each hop is stored under its own URL", arguments: [301, 308])
    func permanentRedirect(_ status: Int) async throws {
        try await withCacheServer { server in
            try await server.configure("/old", ["status": status, "headers": [["Location", "/new"]], "lastModified": -864_000])
            try await server.configure("/new", ["headers": [["Cache-Control", "max-age=600"]], "body": "new {count}"])
            let net = makeCachingManager()
            let first = try await net.text(server, "/old")
            let second = try await net.text(server, "/old")
            let direct = try await net.text(server, "/new")
            #expect(first.text == "new 1" && first.status == .miss)
            #expect(second.text == "new 1" && second.status == .hit)
            #expect(direct.status == .hit)
            let (old, new) = (try await server.hits("/old"), try await server.hits("/new"))
            #expect(old == 1 && new == 1)
        }
    }

    @Test("A 302 without freshness is asked again, its target still served from the cache")
    func temporaryRedirect() async throws {
        try await withCacheServer { server in
            try await server.configure("/moved", ["status": 302, "headers": [["Location", "/target"]]])
            try await server.configure("/target", ["headers": [["Cache-Control", "max-age=600"]]])
            let net = makeCachingManager()
            _ = try await net.text(server, "/moved")
            let second = try await net.text(server, "/moved")
            #expect(second.status == .hit)
            let (moved, target) = (try await server.hits("/moved"), try await server.hits("/target"))
            #expect(moved == 2 && target == 1)
        }
    }

    @Test("Under RedirectPolicy.none a cached 301 is the response itself, a HIT")
    func redirectNotFollowed() async throws {
        try await withCacheServer { server in
            try await server.configure("/permanent", ["status": 301, "headers": [["Location", "/elsewhere"], ["Cache-Control", "max-age=600"]]])
            let net = makeCachingManager()
            _ = try await net.response(server, "/permanent")
            let cached = try await net.response(server, "/permanent")
            #expect(cached.statusCode == 301 && cached.cacheStatus == .hit && cached.value(forHeader: "Location") == "/elsewhere")
            #expect(try await server.hits("/elsewhere") == 0)
        }
    }

    @Test("The retry chain sees a cached response as an outcome like any other")
    func interceptorsSeeCachedOutcomes() async throws {
        try await withCacheServer { server in
            try await server.configure("/seen", ["headers": [["Cache-Control", "max-age=600"]]])
            let net = makeCachingManager()
            let seen = CallRecorder<String>()
            net.interceptors = [OutcomeWatcher(seen: seen)]
            _ = try await net.text(server, "/seen")
            _ = try await net.text(server, "/seen")
            #expect(seen.values == ["200 miss", "200 hit"])
        }
    }
}

/// Records each outcome's status and cache status; never retries.
struct OutcomeWatcher: RequestInterceptor {
    let seen: CallRecorder<String>
    func retry(_ request: OutgoingRequest, after outcome: RequestOutcome, attempt: Int) async -> RetryDecision {
        if case .response(let response) = outcome {
            seen.record("\(response.statusCode) \(response.cacheStatus.map { "\($0)" } ?? "nil")")
        }
        return .doNotRetry
    }
}
