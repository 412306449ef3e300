import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The verbose log: what it shows, what it hides, and silence when it is off.
@Suite("The text log", .sharing)
struct LoggingTests {
    @Test("A live request logs its request line and headers, then the response, both under one request id")
    func liveRequestLogsRequestLineHeadersAndResponse() async throws {
        let log = LogCollector()
        try await withTestServer { server in
            let net = makeManager(log: log)
            _ = try await net.perform(TestRequest<Echo>(server.provider(headers: ["Accept": "application/json"]), "/echo",
                                                        params: ["term": "Dream Theater"]))
            let entries = log.all
            #expect(entries.count == 2)
            let url = "http://127.0.0.1:\(server.port)/echo?term=Dream%20Theater"
            #expect(entries.first?.contains("→ GET \(url)") == true)
            #expect(entries.first?.contains("Accept: application/json") == true)
            #expect(entries.last?.contains("← 200 GET \(url) in ") == true)
            #expect(entries.last?.contains("\"method\" : \"GET\"") == true, "pretty-printed JSON preview")
            #expect(!log.text.contains("[MOCK]"))
            // Both entries carry the same request id.
            let ids = entries.map { $0.prefix { $0 != "]" } }
            #expect(ids.count == 2 && ids[0] == ids[1] && ids[0].hasPrefix("[NetworkLayer #"))
        }
    }

    @Test("Both entries of a mocked request are marked [MOCK]")
    func mockedRequestsAreMarkedMock() async throws {
        let log = LogCollector()
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        _ = try await makeManager(mocks: fixtureMocks, log: log).perform(MockedRequest<User>(provider, "/users/7", mock: "User"))
        #expect(log.all.count == 2)
        #expect(log.all.allSatisfy { $0.contains("[MOCK]") })
    }

    @Test("A failure is logged with the error's description")
    func failureIsLoggedWithTheError() async throws {
        let log = LogCollector()
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        let error = await networkError { try await makeManager(log: log).perform(TestRequest<Echo>(provider, "/echo")) }
        #expect(log.all.count == 2)
        #expect(log.all.last?.contains("✗") == true)
        #expect(log.all.last?.contains(error?.errorDescription ?? "-") == true)
    }

    @Test("A request body is previewed, pretty-printed, with its size")
    func requestBodyIsPreviewedAndSizeShown() async throws {
        let log = LogCollector()
        try await withTestServer { server in
            _ = try await makeManager(log: log).perform(TestRequest<Echo>(server.provider(), "/echo", method: .post,
                                                                          params: ["name": "Ada", "id": 7]))
            let request = try #require(log.all.first)
            #expect(request.contains("body: 21 bytes"))  // {"id":7,"name":"Ada"}
            #expect(request.contains("\"name\" : \"Ada\""))
        }
    }

    @Test("With isVerbose off nothing is written and no log is even built; turning it on works at once", .measuring)
    func nothingIsWrittenWhenNotVerbose() async throws {
        let log = LogCollector()
        try await withTestServer { server in
            let net = makeManager(log: log)
            net.isVerbose = false
            // No request log is even created, so no text is built (`make test` runs one test at a
            // time, so no other test creates logs meanwhile).
            let logsBefore = NetworkLog.created
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
            _ = await networkError { try await net.perform(TestRequest<Echo>(server.provider(), "/status/500")) }
            #expect(NetworkLog.created == logsBefore)
            #expect(log.all.isEmpty)
            // And it can be turned back on at any time.
            net.isVerbose = true
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
            #expect(log.all.count == 2)
        }
    }

    @Test("Long bodies are truncated in the preview")
    func longBodiesAreTruncatedInThePreview() async throws {
        let log = LogCollector()
        try await withTestServer { server in
            _ = try await makeManager(log: log).perform(TestRequest<Echo>(server.provider(), "/echo", method: .post,
                                                                          params: ["blob": String(repeating: "x", count: 20_000)]))
            for entry in log.all {
                #expect(entry.count < NetworkLog.previewLimit + 2_000)
                #expect(entry.contains("truncated"))
            }
        }
    }

    // MARK: Redaction

    /// Values that must never appear in a log entry or an error description.
    static let canaries = ["canary-authorization", "canary-proxy", "canary-cookie", "canary-apikey", "canary-api-key",
                           "canary-auth-token", "canary-client-secret", "canary-custom", "canary-query-token",
                           "canary-access-token", "canary-api_key", "canary-password", "canary-body-password",
                           "canary-custom-query", "canary-userinfo"]

    @Test("Secrets in headers, query items, bodies and Set-Cookie never reach the log or an error")
    func secretsNeverReachTheLogOrErrors() async throws {
        let log = LogCollector()
        try await withTestServer { server in
            let net = makeManager(log: log)
            net.redactedHeaderNames = ["X-Custom-Credential"]
            net.redactedQueryItemNames = ["my_secret_param"]
            let provider = server.provider(headers: [
                "Authorization": "Bearer canary-authorization",
                "Proxy-Authorization": "Basic canary-proxy",
                "Cookie": "session=canary-cookie",
                "X-API-Key": "canary-apikey",
                "Api-Key": "canary-api-key",
                "X-Auth-Token": "canary-auth-token",
                "X-Client-Secret": "canary-client-secret",
                "X-Custom-Credential": "canary-custom",
            ])
            let query: [String: any Sendable] = ["token": "canary-query-token", "access_token": "canary-access-token",
                                                 "api_key": "canary-api_key", "password": "canary-password",
                                                 "my_secret_param": "canary-custom-query", "visible": "shown"]
            // Secrets echoed back by the server are in the response body too.
            _ = try await net.perform(TestRequest<Echo>(provider, "/echo", params: query))
            _ = try await net.perform(TestRequest<Echo>(provider, "/echo", method: .post,
                                                        params: ["user": "ada", "password": "canary-body-password"]))
            // The server's Set-Cookie (session=abc123) is a secret as well.
            _ = try await net.perform(TestRequest<HeadersEcho>(provider, "/headers"))
            // An error about a URL with credentials in it.
            let unreachable = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
            let error = await networkError {
                try await net.perform(TestRequest<Echo>(unreachable, "/echo?token=canary-query-token", params: ["password": "canary-password"]))
            }

            let everything = log.text + (error?.errorDescription ?? "") + (error?.recoverySuggestion ?? "")
            for canary in Self.canaries { #expect(!everything.contains(canary), "\(canary) leaked") }
            #expect(!everything.contains("abc123"), "Set-Cookie leaked")
            #expect(everything.contains("<redacted>"))
            #expect(everything.contains("visible=shown"), "ordinary query items stay readable")
        }
    }

    @Test("A URL's password and secret query items are redacted; its user name is shown")
    func urlUserInfoIsRedacted() {
        let text = Redactor.default.redact(urlString: "https://ada:canary-userinfo@example.com/path?token=abc&q=1#frag")
        #expect(text == "https://ada:<redacted>@example.com/path?token=<redacted>&q=1#frag")
    }

    @Test("A URL whose user name is the credential hides it: no password, an empty one, GitHub's x-oauth-basic")
    func tokenAsUserNameIsRedacted() {
        #expect(Redactor.default.redact(urlString: "https://ghp_canary1234@example.com/r") == "https://<redacted>@example.com/r")
        #expect(Redactor.default.redact(urlString: "https://ghp_canary1234:@example.com/r") == "https://<redacted>@example.com/r")
        #expect(Redactor.default.redact(urlString: "https://ghp_canary1234:x-oauth-basic@example.com/r") == "https://<redacted>@example.com/r")
        #expect(Redactor.default.redact(urlString: "https://ghp_canary1234:X-OAuth-Basic@example.com/r") == "https://<redacted>@example.com/r")
        #expect(Redactor.default.redact(urlString: "https://x-access-token:ghp_canary1234@example.com/r")
                == "https://x-access-token:<redacted>@example.com/r")
    }
}
