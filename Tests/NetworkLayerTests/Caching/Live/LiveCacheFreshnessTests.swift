import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// How long a stored response answers without the network (RFC 9111 section 4.2), through the
/// pipeline against the counting server.
@Suite("A stored response is fresh as long as RFC 9111 says", .sharing)
struct LiveCacheFreshnessTests {
    /// Requests `path` twice, `pause` seconds apart; how many reached the server.
    func hitsAfterTwoRequests(_ server: CacheServer, _ path: String, pause: Double = 0,
                              net: NetworkManager = makeCachingManager()) async throws -> Int {
        _ = try await net.text(server, path)
        if pause > 0 { try await Task.sleep(for: .seconds(pause)) }
        _ = try await net.text(server, path)
        return try await server.hits(path)
    }

    @Test("max-age: fresh within it, stale after it (a second later)")
    func maxAge() async throws {
        try await withCacheServer { server in
            try await server.configure("/max-age-60", ["headers": [["Cache-Control", "max-age=60"]]])
            try await server.configure("/max-age-1", ["headers": [["Cache-Control", "max-age=1"]]])
            let net = makeCachingManager()
            #expect(try await hitsAfterTwoRequests(server, "/max-age-60", net: net) == 1)
            #expect(try await hitsAfterTwoRequests(server, "/max-age-1", pause: 1.6, net: net) == 2)
        }
    }

    @Test("Expires against Date: a future date is fresh; a past one, 0, and an invalid one are stale")
    func expires() async throws {
        try await withCacheServer { server in
            try await server.configure("/future", ["headers": [["Expires", "{date:+600}"]]])
            try await server.configure("/past", ["headers": [["Expires", "{date:-600}"]]])
            try await server.configure("/zero", ["headers": [["Expires", "0"]]])
            try await server.configure("/year-9999", ["headers": [["Expires", "Fri, 31 Dec 9999 23:59:59 GMT"]]])
            #expect(try await hitsAfterTwoRequests(server, "/future") == 1)
            #expect(try await hitsAfterTwoRequests(server, "/past") == 2)
            #expect(try await hitsAfterTwoRequests(server, "/zero") == 2)
            #expect(try await hitsAfterTwoRequests(server, "/year-9999") == 1)
        }
    }

    @Test("Age counts against max-age: a response already older than its lifetime is stale on arrival")
    func age() async throws {
        try await withCacheServer { server in
            try await server.configure("/aged", ["headers": [["Cache-Control", "max-age=60"], ["Age", "100"]]])
            try await server.configure("/young", ["headers": [["Cache-Control", "max-age=60"], ["Age", "10"]]])
            try await server.configure("/absurd-age", ["headers": [["Cache-Control", "max-age=60"], ["Age", "99999999999999999999"]]])
            #expect(try await hitsAfterTwoRequests(server, "/aged") == 2)
            #expect(try await hitsAfterTwoRequests(server, "/young") == 1)
            #expect(try await hitsAfterTwoRequests(server, "/absurd-age") == 2)
        }
    }

    @Test("Heuristic freshness: 10 % of the time since Last-Modified; none without it")
    func heuristic() async throws {
        try await withCacheServer { server in
            try await server.configure("/old-document", ["headers": [] as [[String]], "lastModified": -86_400])
            try await server.configure("/just-modified", ["headers": [] as [[String]], "lastModified": -2])
            try await server.configure("/no-validator", ["headers": [] as [[String]]])
            #expect(try await hitsAfterTwoRequests(server, "/old-document") == 1)  // 2.4 h of freshness
            #expect(try await hitsAfterTwoRequests(server, "/just-modified", pause: 1.1) == 2)  // 0.2 s
            #expect(try await hitsAfterTwoRequests(server, "/no-validator") == 2)
        }
    }

    @Test("s-maxage is ignored (a private cache); a malformed max-age is stale, the first of two counts; no-cache and must-revalidate go back to the server")
    func directives() async throws {
        try await withCacheServer { server in
            try await server.configure("/s-maxage", ["headers": [["Cache-Control", "s-maxage=600"]]])
            try await server.configure("/malformed", ["headers": [["Cache-Control", "max-age=abc"]]])
            try await server.configure("/duplicate", ["headers": [["Cache-Control", "max-age=600, max-age=0"]]])
            try await server.configure("/no-cache", ["headers": [["Cache-Control", "no-cache, max-age=600"]], "etag": "\"n\""])
            try await server.configure("/must-revalidate", ["headers": [["Cache-Control", "max-age=1, must-revalidate"]],
                                                            "etag": "\"m\""])
            #expect(try await hitsAfterTwoRequests(server, "/s-maxage") == 2)
            #expect(try await hitsAfterTwoRequests(server, "/malformed") == 2)
            #expect(try await hitsAfterTwoRequests(server, "/duplicate") == 1)  // the first of two counts (section 4.2.1)
            #expect(try await hitsAfterTwoRequests(server, "/no-cache") == 2)
            #expect(try await server.count("/no-cache").conditional == 1)
            // must-revalidate: a request's max-stale does not make it usable stale.
            let net = makeCachingManager()
            _ = try await net.text(server, "/must-revalidate")
            try await Task.sleep(for: .seconds(1.6))
            let stale = try await net.text(server, "/must-revalidate", headers: ["Cache-Control": "max-stale=60"])
            #expect(stale.status == .revalidated)
            #expect(try await server.count("/must-revalidate").conditional == 1)
        }
    }
}
