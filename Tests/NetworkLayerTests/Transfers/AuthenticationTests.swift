import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

@Suite("Authentication", .sharing)
struct AuthenticationTests {
    @Test("Bearer, basic, API-key header and query item, and token-source credentials reach the server")
    func eachKindOfCredentialReachesTheServer() async throws {
        try await withTestServer { server in
            func echo(_ authentication: Authentication) async throws -> Echo {
                try await makeManager().perform(TestRequest<Echo>(AuthProvider(port: server.port, authentication: authentication), "/echo"))
            }
            #expect(try await echo(.bearer("abc")).header("Authorization") == "Bearer abc")
            #expect(try await echo(.basic(username: "ada", password: "p:ss")).header("Authorization")
                    == "Basic " + Data("ada:p:ss".utf8).base64EncodedString())
            #expect(try await echo(.apiKey("k1")).header("X-API-Key") == "k1")
            #expect(try await echo(.apiKey("k2", header: "Api-Key")).header("Api-Key") == "k2")
            let query = try await echo(.apiKey("k 3", queryItem: "api_key"))
            #expect(query.args["api_key"] == ["k 3"])
            let source = BearerTokenSource(token: { "from-source" })
            #expect(try await echo(.bearer(source)).header("Authorization") == "Bearer from-source")
        }
    }

    @Test("A request with requiresAuthentication = false is sent without credentials")
    func publicEndpointsOptOut() async throws {
        try await withTestServer { server in
            let request = TestRequest<Echo>(AuthProvider(port: server.port, authentication: .bearer("abc")), "/echo")
            request.requiresAuthentication = false
            let echo = try await makeManager().perform(request)
            #expect(echo.header("Authorization") == nil)
        }
    }

    @Test("A request's own Authorization header overrides the authentication and is sent once")
    func aRequestHeaderOverridesTheAuthentication() async throws {
        try await withTestServer { server in
            let request = TestRequest<Echo>(AuthProvider(port: server.port, authentication: .bearer("abc")), "/echo",
                                            headers: ["authorization": "Bearer explicit"])
            let echo = try await makeManager().perform(request)
            #expect(echo.headerList.filter { $0.first?.lowercased() == "authorization" }.map { $0[1] } == ["Bearer explicit"])
        }
    }

    @Test("Concurrent 401s share one token refresh and each request retries once")
    func concurrent401sShareOneRefreshAndEachRetriesOnce() async throws {
        try await withTestServer { server in
            let refreshes = Counter()
            // Every request has its stale token before any is sent, so all 20 get a 401 however
            // slowly the tasks start (a sleep in the refresh was not enough under the thread sanitizer).
            let allHaveATokenInHand = ArrivalBarrier(count: 20)
            let source = BearerTokenSource(token: {
                await allHaveATokenInHand.arrive()
                return "stale"
            }, refresh: {
                refreshes.increment()
                try await Task.sleep(for: .milliseconds(200))  // the refresh is still running when the other 401s arrive
                return "fresh"
            })
            let provider = AuthProvider(port: server.port, authentication: .bearer(source))
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        struct Authorized: Decodable, Sendable { let authorized: Bool }
                        return try await makeManager().perform(TestRequest<Authorized>(provider, "/auth/bearer?valid=fresh")).authorized
                    }
                }
                for try await authorized in group { #expect(authorized) }
            }
            #expect(refreshes.value == 1)
            // 20 first attempts with the stale token, 20 retries with the fresh one.
            #expect(try await makeManager().perform(TestRequest<[String: Int]>(server.provider(), "/count"))["count"] == 40)

            // Later requests use the refreshed token from the start.
            _ = try await makeManager().perform(TestRequest<[String: Bool]>(provider, "/auth/bearer?valid=fresh"))
            #expect(refreshes.value == 1)
        }
    }

    @Test("A 401 after the refresh is final")
    func a401AfterTheRefreshIsFinal() async throws {
        try await withTestServer { server in
            let refreshes = Counter()
            let source = BearerTokenSource(token: { "stale" }, refresh: { refreshes.increment(); return "still-wrong" })
            let provider = AuthProvider(port: server.port, authentication: .bearer(source))
            let error = await networkError { try await makeManager().perform(TestRequest<[String: Bool]>(provider, "/auth/bearer?valid=fresh")) }
            guard case .unauthorizedAccess = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(refreshes.value == 1)
            let count = try await makeManager().perform(TestRequest<[String: Int]>(server.provider(), "/count"))["count"]
            #expect(count == 2)
        }
    }

    @Test("Without a refresh, a 401 is final at once")
    func withoutRefreshA401IsFinalAtOnce() async throws {
        try await withTestServer { server in
            let provider = AuthProvider(port: server.port, authentication: .bearer(BearerTokenSource(token: { "stale" })))
            let error = await networkError { try await makeManager().perform(TestRequest<[String: Bool]>(provider, "/auth/bearer?valid=x")) }
            guard case .unauthorizedAccess = error else { Issue.record("got \(String(describing: error))"); return }
            let count = try await makeManager().perform(TestRequest<[String: Int]>(server.provider(), "/count"))["count"]
            #expect(count == 1)
        }
    }

    @Test("Credentials do not follow a redirect to another host; other headers do")
    func credentialsDoNotFollowARedirectToAnotherHost() async throws {
        try await withTestServer { server in
            let provider = AuthProvider(port: server.port, authentication: .bearer("secret-token"),
                                        headers: ["Cookie": "session=1", "X-API-Key": "key", "X-Trace": "kept"])
            // Same host: everything is kept.
            let same = try await makeManager().perform(TestRequest<Echo>(provider, "/redirect-to",
                params: ["url": "http://127.0.0.1:\(server.port)/echo"]))
            #expect(same.header("Authorization") == "Bearer secret-token")
            #expect(same.header("Cookie") == "session=1")

            // Another host name (the same server, reached as localhost): credentials stay behind.
            let other = try await makeManager().perform(TestRequest<Echo>(provider, "/redirect-to",
                params: ["url": "http://localhost:\(server.port)/echo"]))
            #expect(other.path == "/echo")
            #expect(other.header("Host")?.hasPrefix("localhost") == true)
            #expect(other.header("Authorization") == nil)
            #expect(other.header("Cookie") == nil)
            #expect(other.header("X-API-Key") == nil)
            #expect(other.header("X-Trace") == "kept")
        }
    }

    @Test("301, 302 and 303 turn a POST into a GET without a body; 307 and 308 keep both",
          arguments: [(301, "GET", ""), (302, "GET", ""), (303, "GET", ""), (307, "POST", #"{"a":1}"#), (308, "POST", #"{"a":1}"#)])
    func redirectsChangeTheMethodAsBrowsersDo(status: Int, method: String, body: String) async throws {
        try await withTestServer { server in
            let echo = try await makeManager().perform(TestRequest<Echo>(server.provider(),
                "/redirect-to?url=%2Fecho&status=\(status)", method: .post, params: ["a": 1]))
            #expect(echo.method == method)
            #expect(echo.body == body)
            #expect((echo.header("Content-Type") != nil) == !body.isEmpty)
        }
    }
}
