import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `ServiceProvider.adapt(_:)`: the last look at every attempt before it is sent.
@Suite("Adapting the outgoing request", .sharing)
struct AdaptTests {
    @Test("An HMAC-SHA256 over method, path and JSON body, computed in adapt, matches what the server received")
    func signatureMatchesWhatTheServerReceived() async throws {
        let server = try await TestServer.shared()
        let provider = SigningProvider(port: server.port, basePath: "/echo/api/v2", calls: AdaptCalls())
        let request = TestRequest<Echo>(provider, "/orders", method: .post)
        request.body = .json(["item": "guitar", "quantity": 2, "note": "ünïcode & \"quotes\""] as JSONValue)
        let echo = try await Net.perform(request)

        #expect(echo.path == "/echo/api/v2/orders")
        #expect(echo.method == "POST")
        #expect(!echo.body.isEmpty)
        let expected = HMACSHA256.hex(key: provider.key,
                                      message: SigningProvider.signedText(method: echo.method, path: echo.path, nonce: "1", body: echo.body))
        #expect(echo.header("X-Signature") == expected)
        #expect(echo.header("X-Nonce") == "1")
        // A different key or body gives another signature: the comparison means something.
        #expect(HMACSHA256.hex(key: "other", message: SigningProvider.signedText(method: echo.method, path: echo.path, nonce: "1", body: echo.body)) != expected)
    }

    @Test("The signature also matches what httpbin received (method, path, body)")
    func signatureMatchesHTTPBin() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let provider = SigningProvider(port: httpbin.port, basePath: "/anything", calls: AdaptCalls())
        let request = TestRequest<JSONValue>(provider, "/webhooks", method: .put)
        request.body = .json(["event": "order.paid", "amount": 12.5] as JSONValue)
        let received = try await Net.perform(request)
        let method = try #require(received["method"]?.stringValue)
        let path = try #require(received["url"]?.stringValue.flatMap(URL.init(string:))?.path(percentEncoded: true))
        let body = try #require(received["data"]?.stringValue)
        #expect(method == "PUT" && path == "/anything/webhooks")
        #expect(received["headers"]?["X-Signature"]?.stringValue
                == HMACSHA256.hex(key: provider.key, message: SigningProvider.signedText(method: method, path: path, nonce: "1", body: body)))
    }

    @Test("adapt sees the final request: URL with query and credentials, the provider's, authentication's and request's headers, the body")
    func adaptSeesTheFinalRequest() async throws {
        let server = try await TestServer.shared()
        let calls = AdaptCalls()
        let provider = SigningProvider(port: server.port, headers: ["Accept": "application/json", "X-Client": "tests"],
                                       authentication: .apiKey("k-123", queryItem: "api_key"), calls: calls)
        let request = TestRequest<Echo>(provider, "/echo?fixed=1", method: .get, params: ["page": 2], headers: ["X-Request": "r"])
        _ = try await Net.perform(request)
        let seen = try #require(calls.all.first)
        #expect(seen.method == .get)
        #expect(seen.url.absoluteString == "http://127.0.0.1:\(server.port)/echo?fixed=1&page=2&api_key=k-123")
        #expect(seen.headers["Accept"] == "application/json")
        #expect(seen.headers["X-Client"] == "tests")
        #expect(seen.headers["X-Request"] == "r")
        #expect(seen.body == nil && seen.bodyLength == 0)

        let bearer = SigningProvider(port: server.port, authentication: .bearer("tok-9"), calls: calls)
        let post = TestRequest<Echo>(bearer, "/echo", method: .post, params: ["name": "Ada"])
        let echo = try await Net.perform(post)
        let posted = try #require(calls.all.last)
        #expect(posted.headers["Authorization"] == "Bearer tok-9")
        #expect(posted.headers["Content-Type"] == "application/json")
        #expect(posted.body == Data(echo.body.utf8))
        #expect(posted.bodyLength == echo.bodyLength)
    }

    @Test("For a request with requiresAuthentication = false the provider's headers and adapt still apply; the credentials do not")
    func publicEndpoints() async throws {
        let server = try await TestServer.shared()
        let calls = AdaptCalls()
        let provider = SigningProvider(port: server.port, headers: ["X-Client": "tests"], authentication: .bearer("abc"), calls: calls)
        let request = TestRequest<Echo>(provider, "/echo")
        request.requiresAuthentication = false
        let echo = try await Net.perform(request)
        #expect(echo.header("X-Client") == "tests")
        #expect(echo.header("X-Signature") != nil)
        #expect(echo.header("Authorization") == nil)
        #expect(calls.all.first?.headers["Authorization"] == nil)
    }

    @Test("A streamed body is nil with its length: a file's size; a multipart form's is unknown")
    func streamedBodies() async throws {
        let server = try await TestServer.shared()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("upload.bin")
        try Data(repeating: 7, count: 12_345).write(to: file)
        let calls = AdaptCalls()
        let provider = SigningProvider(port: server.port, calls: calls)
        let upload = TestRequest<Echo>(provider, "/echo", method: .put)
        upload.body = .file(file)
        #expect(try await Net.perform(upload).bodyLength == 12_345)
        let form = TestRequest<Echo>(provider, "/echo", method: .post)
        form.body = .multipart(MultipartFormData().text("a", "b").file("f", at: file))
        _ = try await Net.perform(form)
        #expect(calls.all.map(\.body) == [nil, nil])
        #expect(calls.all.map(\.bodyLength) == [12_345, nil])
    }

    @Test("adapt runs again for every retry, each attempt signed afresh (server-side: each attempt's headers)")
    func rerunOnRetry() async throws {
        try await withTestServer(record: true) { server in
            var provider = SigningProvider(port: server.port, calls: AdaptCalls())
            provider.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1))
            let result = try await makeManager().perform(TestRequest<[String: Int]>(provider, "/flaky/adapt-retry?fail=2&status=503"))
            #expect(result == ["attempt": 3])
            #expect(provider.calls.count == 3)
            let recorded = server.recordedBytes()
            #expect(headerValues("X-Nonce", in: recorded) == ["1", "2", "3"])
            let signatures = headerValues("X-Signature", in: recorded)
            #expect(signatures.count == 3 && Set(signatures).count == 3)
            for (index, signature) in signatures.enumerated() {
                let text = SigningProvider.signedText(method: "GET", path: "/flaky/adapt-retry", nonce: String(index + 1), body: "")
                #expect(signature == HMACSHA256.hex(key: provider.key, message: text))
            }
        }
    }

    @Test("adapt runs again after a token refresh and sees the new token")
    func rerunAfterRefresh() async throws {
        let server = try await TestServer.shared()
        let tokens = BearerTokenSource(token: { "stale" }, refresh: { "fresh" })
        let calls = AdaptCalls()
        let provider = SigningProvider(port: server.port, authentication: .bearer(tokens), calls: calls)
        let answer = try await makeManager().perform(TestRequest<[String: Bool]>(provider, "/auth/bearer?valid=fresh"))
        #expect(answer == ["authorized": true])
        #expect(calls.all.map { $0.headers["Authorization"] } == ["Bearer stale", "Bearer fresh"])
    }

    @Test("A redirect to the same origin keeps adapt's headers; adapt does not run again")
    func sameOriginRedirect() async throws {
        let server = try await TestServer.shared()
        let calls = AdaptCalls()
        let provider = SigningProvider(port: server.port, calls: calls) { request, _ in request.setHeader("X-Trace", "t-1", secret: false) }
        let echo = try await Net.perform(TestRequest<Echo>(provider, "/redirect/1"))
        #expect(echo.path == "/echo")
        #expect(calls.count == 1)
        #expect(echo.header("X-Trace") == "t-1")
        #expect(echo.header("X-Signature") != nil)
    }

    @Test("A redirect to another origin carries none of the headers adapt set, secret or not; adapt does not run again")
    func crossOriginRedirect() async throws {
        let server = try await TestServer.shared()
        try await withTestServer { other in
            let calls = AdaptCalls()
            let provider = SigningProvider(port: server.port, headers: ["X-Client": "tests", "X-Replaced": "provider"], calls: calls) { request, _ in
                request.setHeader("X-Trace", "t-1", secret: false)
                request.setHeader("X-Tenant-Proof", "proof-1", secret: true)
                request.setHeader("X-Replaced", "adapted")
            }
            let target = "http://localhost:\(other.port)/echo"
            let echo = try await Net.perform(TestRequest<Echo>(provider, "/redirect-to?url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"))
            #expect(echo.path == "/echo")
            #expect(calls.count == 1)
            #expect(echo.header("X-Client") == "tests")
            for name in ["X-Signature", "X-Nonce", "X-Trace", "X-Tenant-Proof", "X-Replaced"] {
                #expect(echo.header(name) == nil, "\(name) reached the other origin")
            }
        }
    }

    @Test("Headers adapt declares secret are redacted in the log and copy-as-curl; others are shown; secret-looking names are secret unless declared public")
    func declaredSecretsAreRedacted() async throws {
        let server = try await TestServer.shared()
        let proof = "nlCanaryTenantProof81b2"
        let apiToken = "nlCanaryApiToken4c9d"
        let provider = SigningProvider(port: server.port, calls: AdaptCalls()) { request, _ in
            request.setHeader("X-Tenant-Proof", proof, secret: true)
            request.setHeader("X-Api-Token", apiToken, secret: false)   // public: secret: false means what it says
            request.setHeader("X-Trace", "visible-trace")
        }
        let log = LogCollector()
        let echo = try await makeManager(log: log).perform(TestRequest<Echo>(provider, "/echo", method: .post, params: ["a": 1]))
        #expect(echo.header("X-Tenant-Proof") == proof)
        let signature = try #require(echo.header("X-Signature"))
        let text = log.text
        for secret in [proof, signature] { #expect(!text.contains(secret), "the log shows \(secret)") }
        #expect(text.contains("X-Api-Token: \(apiToken)"), "a header declared public was redacted")
        #expect(text.contains("X-Tenant-Proof: <redacted>"))
        #expect(text.contains("X-Signature: <redacted>"))
        #expect(text.contains("X-Trace: visible-trace"))
        #expect(text.contains("X-Nonce: 1"))

        let curl = try await makeManager().curlCommand(for: TestRequest<Echo>(provider, "/echo", method: .post, params: ["a": 1]))
        #expect(curl.contains("'X-Tenant-Proof: <redacted>'") && curl.contains("'X-Signature: <redacted>'"))
        #expect(curl.contains("'X-Trace: visible-trace'"))
        #expect(!curl.contains(proof) && curl.contains("'X-Api-Token: \(apiToken)'"))
        let replay = try await makeManager().curlCommand(for: TestRequest<Echo>(provider, "/echo", method: .post, params: ["a": 1]),
                                                         redactingSecrets: false)
        #expect(replay.contains("'X-Tenant-Proof: \(proof)'"))
        #expect(replay.contains("'X-Signature: "))
    }

    @Test("A failing request's log and error never show a secret adapt declared, even when the server echoes it back")
    func declaredSecretsNeverLeak() async throws {
        let server = try await TestServer.shared()
        let proof = "nlCanaryTenantProof93e4"
        let provider = SigningProvider(port: server.port, calls: AdaptCalls()) { request, _ in
            request.setHeader("X-Tenant-Proof", proof, secret: true)
        }
        let log = LogCollector()
        // /echo answers with the request's headers in its body; decoded as the wrong type it fails.
        let error = await networkError { try await makeManager(log: log).perform(TestRequest<StatusBody>(provider, "/echo")) }
        guard let error else { return }
        #expect(error.caseName == "serialization")
        for text in [log.text, error.errorDescription ?? "", "\(error)", String(reflecting: error)] {
            #expect(!text.contains(proof), "\(text)")
        }
    }

    @Test("adapt can remove a header")
    func removeHeader() async throws {
        let server = try await TestServer.shared()
        let provider = SigningProvider(port: server.port, headers: ["X-Remove-Me": "1", "X-Keep": "2"], calls: AdaptCalls()) { request, _ in
            request.removeHeader("x-remove-me")
        }
        let echo = try await Net.perform(TestRequest<Echo>(provider, "/echo"))
        #expect(echo.header("X-Remove-Me") == nil)
        #expect(echo.header("X-Keep") == "2")
    }

    @Test("An error of the app's own type from adapt is underlyingError of .invalidRequest, and nothing is sent")
    func adaptErrorIsKept() async throws {
        try await withTestServer { server in
            let provider = SigningProvider(port: server.port, calls: AdaptCalls()) { _, _ in throw AppHookFailure(step: "no signing key") }
            let error = await networkError { try await makeManager().perform(TestRequest<Echo>(provider, "/echo")) }
            #expect(error?.caseName == "invalidRequest")
            #expect(error?.underlyingError as? AppHookFailure == AppHookFailure(step: "no signing key"))
            #expect(error?.errorDescription?.contains("adapt(_:)") == true)
            #expect(error?.context?.request == "GET http://127.0.0.1:\(server.port)/echo")
            let received = try await server.receivedRequestCount()
            #expect(received == 0)
        }
    }

    @Test("A CancellationError from adapt is .cancelled, and nothing is sent")
    func adaptCancellation() async throws {
        try await withTestServer { server in
            let provider = SigningProvider(port: server.port, calls: AdaptCalls()) { _, _ in throw CancellationError() }
            let error = await networkError { try await makeManager().perform(TestRequest<Echo>(provider, "/echo")) }
            #expect(error?.caseName == "cancelled")
            let received = try await server.receivedRequestCount()
            #expect(received == 0)
        }
    }

    @Test("A header adapt sets with a control character in its name or value is refused before anything is sent",
          arguments: [("X-Evil", "a\r\nX-Injected: 1"), ("X-Evil\r\nX-Injected", "1"), ("", "empty name"), ("X-Nul", "a\u{0}b")])
    func invalidHeadersRefused(name: String, value: String) async throws {
        try await withTestServer { server in
            let provider = SigningProvider(port: server.port, calls: AdaptCalls()) { request, _ in request.setHeader(name, value, secret: false) }
            let error = await networkError { try await makeManager().perform(TestRequest<Echo>(provider, "/echo")) }
            #expect(error?.caseName == "invalidRequest")
            #expect(error?.errorDescription?.contains("adapt(_:)") == true)
            #expect(error?.errorDescription?.contains("\r") == false)
            let received = try await server.receivedRequestCount()
            #expect(received == 0)
        }
    }

    @Test("In mock mode adapt runs too, once per request")
    func mockMode() async throws {
        let calls = AdaptCalls()
        let provider = SigningProvider(host: "api.example.com", httpScheme: .https, calls: calls)
        let user = try await makeManager(mocks: fixtureMocks).perform(MockedRequest<User>(provider, "/users/7", mock: nil))
        #expect(user == User(id: 7, name: "Ada"))
        #expect(calls.count == 1)
    }
}
