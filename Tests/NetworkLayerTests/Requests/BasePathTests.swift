import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A provider's `basePath` is joined to every endpoint with exactly one slash.
@Suite("Base path", .sharing)
struct BasePathTests {
    @Test("The base path is joined to the endpoint without a double or missing slash, however either is written",
          arguments: [
              ("/echo/v2", "/orders", "/echo/v2/orders"),
              ("echo/v2", "orders", "/echo/v2/orders"),
              ("/echo/v2/", "/orders", "/echo/v2/orders"),
              ("echo/v2/", "orders", "/echo/v2/orders"),
              ("//echo/v2//", "//orders", "/echo/v2/orders"),
              ("/echo/v2", "/orders/", "/echo/v2/orders/"),
              ("/echo/v2", "", "/echo/v2"),
              ("/echo/v2", "/", "/echo/v2/"),
              ("/", "/echo/orders", "/echo/orders"),
              ("", "echo/orders", "/echo/orders"),
              ("", "/echo/orders", "/echo/orders"),
              ("/echo", "/a b/ü", "/echo/a%20b/%C3%BC"),
              ("/echo/a b", "x", "/echo/a%20b/x"),
          ])
    func joined(basePath: String, endpoint: String, expectedPath: String) async throws {
        let server = try await TestServer.shared()
        var provider = server.provider()
        provider.basePath = basePath
        let (echo, response) = try await Net.performWithResponse(TestRequest<Echo>(provider, endpoint))
        #expect(echo.path == expectedPath)
        #expect(response.url.path(percentEncoded: true) == expectedPath)
    }

    @Test("A query-only endpoint and params follow the base path directly")
    func queryAfterTheBasePath() async throws {
        let server = try await TestServer.shared()
        var provider = server.provider()
        provider.basePath = "/echo/v2/"
        let onlyQuery = try await Net.perform(TestRequest<Echo>(provider, "?page=2"))
        #expect(onlyQuery.path == "/echo/v2")
        #expect(onlyQuery.query == "page=2")
        let withParams = try await Net.perform(TestRequest<Echo>(provider, "", params: ["page": 3]))
        #expect(withParams.path == "/echo/v2")
        #expect(withParams.query == "page=3")
        let both = try await Net.perform(TestRequest<Echo>(provider, "/items?sort=name", params: ["page": 4]))
        #expect(both.path == "/echo/v2/items")
        #expect(both.query == "sort=name&page=4")
    }

    @Test("A base path with a query, a fragment or a control character is refused before anything is sent",
          arguments: ["/api?v=2", "/api#top", "/api\r\nX-Evil: 1", "/api\u{0}"])
    func refusedBasePaths(basePath: String) async throws {
        try await withTestServer { server in
            var provider = server.provider()
            provider.basePath = basePath
            let error = await networkError { try await makeManager().perform(TestRequest<Echo>(provider, "/echo")) }
            #expect(error?.caseName == "invalidRequest")
            #expect(error?.errorDescription?.contains("basePath") == true)
            #expect(error?.errorDescription?.contains("\r") == false)
            let received = try await server.receivedRequestCount()
            #expect(received == 0)
        }
    }

    @Test("In mock mode the base path is part of the mock's METHOD/path name")
    func mockNameIncludesTheBasePath() async throws {
        let provider = TestProvider(host: "api.example.com", httpScheme: .https, basePath: "/users/")
        let user = try await makeManager(mocks: fixtureMocks).perform(TestRequest<User>(provider, "7"))
        #expect(user == User(id: 7, name: "Ada"))
    }

    @Test("Property: for any base path and endpoint, with any number of slashes around them, the join has exactly one slash and every segment once")
    func joinProperty() throws {
        var random = SeededRandom(seed: 17)
        let segments = ["api", "v2", "orders", "a-b", "x.y", "~u", "%41"]
        func slashes() -> String { String(repeating: "/", count: Int.random(in: 0...3, using: &random)) }
        for _ in 0..<2_000 {
            let base = (0..<Int.random(in: 0...3, using: &random)).compactMap { _ in segments.randomElement(using: &random) }
            let tail = (0..<Int.random(in: 1...3, using: &random)).compactMap { _ in segments.randomElement(using: &random) }
            let basePath = slashes() + base.joined(separator: "/") + slashes()
            let endpoint = slashes() + tail.joined(separator: "/")
            let provider = TestProvider(host: "example.com", httpScheme: .https, basePath: basePath)
            let url = try TestRequest<Echo>(provider, endpoint).resolved().baseURL()
            // Without a base path there is no join: the endpoint is used as written (a "/" added in front if missing).
            let expected = basePath.isEmpty
                ? "https://example.com" + (endpoint.hasPrefix("/") ? endpoint : "/" + endpoint)
                : "https://example.com" + (base.isEmpty ? "" : "/" + base.joined(separator: "/")) + "/" + tail.joined(separator: "/")
            #expect(url == expected, "basePath \(basePath.debugDescription), endpoint \(endpoint.debugDescription)")
        }
    }
}
