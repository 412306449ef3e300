import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The cache tests' server (Tests/Servers/cache_server.py) does what phase 2's tests will rely on:
/// it counts every request per path, answers validators with 304, fails on demand, and answers
/// POST with Location. Checked with the manager as it is today (no cache), so every request
/// reaches it.
@Suite("The cache tests' server", .sharing)
struct CacheServerTests {
    struct Echo: Decodable, Sendable {}

    @Test("It counts each request per path, serves the configured headers, and answers a matching validator with 304")
    func countsAndValidates() async throws {
        try await withCacheServer { server in
            try await server.configure("/item", ["headers": [["Cache-Control", "max-age=60"], ["Vary", "Foo"]],
                                                 "etag": "\"v1\"", "body": "item {count}"])
            let net = makeManager()
            let (first, response) = try await net.performWithResponse(TestRequest<String>(server.provider(), "/item"))
            #expect(first == "item 1")
            #expect(response.cacheStatus == nil, "the manager has no cache")
            var marked = response
            marked.cacheStatus = .revalidated
            #expect(marked.replacingBody(Data()).cacheStatus == .revalidated, "an error's copy keeps where it came from")
            #expect(response.value(forHeader: "Cache-Control") == "max-age=60" && response.value(forHeader: "ETag") == "\"v1\"")
            #expect(response.value(forHeader: "Date") != nil)
            // (Without a cache a 304 is an .apiError under the default accepted statuses.)
            let validated = await #expect(throws: NetworkError.self) {
                try await net.perform(TestRequest<EmptyResponse>(server.provider(), "/item", headers: ["If-None-Match": "W/\"v1\""]))
            }
            #expect(validated?.context?.statusCode == 304)
            let count = try await server.count("/item")
            #expect(count.count == 2 && count.conditional == 1)
            #expect(count.requests.last?.headers["If-None-Match"] == "W/\"v1\"")
            #expect(try await server.count("/other").count == 0)
        }
    }

    @Test("Failures on demand, then the configured response; POST answers with its Location; reset forgets")
    func failuresAndPost() async throws {
        try await withCacheServer { server in
            try await server.configure("/flaky", ["fail": ["status": 503, "count": 1], "body": "ok"])
            let net = makeManager()
            await #expect(throws: NetworkError.self) { try await net.perform(TestRequest<String>(server.provider(), "/flaky")) }
            #expect(try await net.perform(TestRequest<String>(server.provider(), "/flaky")) == "ok")
            try await server.configure("/items", method: "POST", ["status": 201, "headers": [["Location", "/items/1"]], "body": ""])
            let created = try await net.performWithResponse(BodyRequest<EmptyResponse>(server.provider(), "/items", body: .data(Data("x".utf8)))).1
            #expect(created.statusCode == 201 && created.value(forHeader: "Location") == "/items/1")
            #expect(try await server.count("/items").methods == ["POST": 1])
            try await server.reset()
            #expect(try await server.count("/flaky").count == 0)
        }
    }
}
