import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Credentials, secret headers and cookies go only to the origin (scheme, host, port) the
/// request was made for. A redirect anywhere else leaves them behind, HTTPS → HTTP does even on
/// the same host, and a server cannot smuggle a credential across in its `Location`. The servers
/// record every byte they receive, so "nothing reached it" is read from the server itself.
@Suite("Credentials stay at their origin", .sharing)
struct CrossOriginRedirectTests {
    static let bearer = "nlOriginBearer~5c2"
    static let apiKey = "nlOriginKey^8d1"
    static let cookie = "nlOriginCookie|3e7"

    /// Every secret the provider below sends, in the forms it takes on the wire.
    static var wireSecrets: [[UInt8]] { [bearer, apiKey, cookie].flatMap(wireForms) }

    static func provider(for server: TestServer, apiKeyHeader: String = "Ocp-Apim-Subscription-Key",
                         authentication: Authentication? = nil) -> SecretProvider {
        server.secretProvider(authentication: authentication ?? .apiKey(apiKey, header: apiKeyHeader),
                              headers: ["Authorization": "Bearer \(bearer)", "Cookie": "sid=\(cookie)", "X-Trace": "kept"])
    }

    /// `/redirect-to` on `server`, towards `target`.
    static func redirect(to target: String, status: Int = 302) -> String {
        "/redirect-to?status=\(status)&url=" + ParameterValue.percentEncode(target)
    }

    static func expectNothingSecret(reached server: TestServer, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(server.recordedBytes())
        for secret in wireSecrets where bytes.containsBytes(secret) {
            Issue.record("\(comment): \(String(decoding: secret, as: UTF8.self)) reached it", sourceLocation: sourceLocation)
        }
    }

    // MARK: The rewrite, without a server

    /// A prepared request to `url` with the provider's secrets, as the manager builds it.
    static func prepared(_ url: String, method: HTTPMethod = .get) async throws -> PreparedRequest {
        let components = try #require(URLComponents(string: url))
        let server = SecretProvider(httpScheme: components.scheme == "https" ? .https : .http, port: components.port)
        var provider = server
        let host = try #require(components.host)
        provider.host = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        provider.authentication = .apiKey(apiKey, header: "Ocp-Apim-Subscription-Key")
        provider.headers = ["Authorization": "Bearer \(bearer)", "Cookie": "sid=\(cookie)", "X-Trace": "kept", "Host": "pinned.example"]
        let request = TestRequest<Echo>(provider, components.path, method: method)
        return try request.resolved().prepare(providerHeaders: provider.headers, credentials: try await provider.authentication?.credentials())
    }

    @Test("Each hop keeps or drops the credentials by the origin it goes to", arguments: [
        ("https://api.example.com/a", "https://api.example.com/b", true),
        ("https://api.example.com/a", "https://API.EXAMPLE.COM:443/b", true),
        ("http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b?x=1", true),
        ("http://127.0.0.1:8080/a", "http://127.0.0.1:8081/b", false),
        ("https://api.example.com/a", "http://api.example.com/b", false),
        ("https://api.example.com:8443/a", "http://api.example.com:8443/b", false),
        ("http://api.example.com/a", "https://api.example.com/b", false),
        ("https://api.example.com/a", "https://api.example.com.evil.test/b", false),
        ("https://api.example.com/a", "https://api.example.com:443@evil.test/b", false),
        ("http://[::1]:8080/a", "http://[0:0:0:0:0:0:0:1]:8080/b", true),
        ("http://[::1]:8080/a", "http://127.0.0.1:8080/b", false),
    ])
    func hopRewrite(_ hop: (from: String, to: String, keeps: Bool)) async throws {
        let request = try await Self.prepared(hop.from)
        let next = try request.redirected(to: hop.to, status: 302, remainingTimeout: 10, from: request)
        let names = Set(next.headers.map { $0.name.lowercased() })
        for name in ["authorization", "cookie", "ocp-apim-subscription-key", "host"] {
            #expect(names.contains(name) == hop.keeps, "\(hop.from) → \(hop.to): \(name)")
        }
        #expect(names.contains("x-trace"), "an ordinary header always follows")
    }

    @Test("A credential left behind does not come back when a later hop returns to the origin")
    func leftBehindStaysBehind() async throws {
        let request = try await Self.prepared("https://api.example.com/a")
        let away = try request.redirected(to: "https://cdn.example.net/b", status: 302, remainingTimeout: 10, from: request)
        let back = try away.redirected(to: "https://api.example.com/c", status: 302, remainingTimeout: 10, from: request)
        #expect(!back.headers.contains { $0.name.equalsIgnoringASCIICase("Authorization") })
        #expect(back.url.absoluteString == "https://api.example.com/c")
    }

    @Test("The next hop is sent to the URL libcurl parsed, so the origin checked is the one connected to")
    func theHopIsTheURLLibcurlParsed() async throws {
        let request = try await Self.prepared("http://127.0.0.1:8080/a")
        let next = try request.redirected(to: "http://127.0.0.1:8080@evil.example:9090/x/../y", status: 302, remainingTimeout: 10,
                                          from: request)
        #expect(next.url.host == "evil.example")
        #expect(next.url.port == 9090)
        #expect(!next.headers.contains { $0.name.equalsIgnoringASCIICase("Authorization") })
    }

    // MARK: Live, against servers that record what they receive

    @Test("CVE-2022-27776: a redirect to another port of the same host gets no credential, cookie or API key")
    func anotherPortOfTheSameHost() async throws {
        try await withTestServer(record: true) { origin in
            try await withTestServer(record: true) { other in
                let echo = try await makeManager().perform(TestRequest<Echo>(Self.provider(for: origin),
                                                                             Self.redirect(to: other.baseURL + "/echo")))
                #expect(echo.path == "/echo")
                #expect(echo.header("X-Trace") == "kept", "the redirect was followed with the ordinary headers")
                #expect(Array(origin.recordedBytes()).containsBytes(Array(Self.apiKey.utf8)), "the origin got the key")
                Self.expectNothingSecret(reached: other, "127.0.0.1:\(other.port)")
            }
        }
    }

    @Test("A redirect to another port of the same host over HTTPS gets no credential")
    func anotherPortOverHTTPS() async throws {
        try await withLegitServer { origin in
            try await withLegitServer { other in
                let echo = try await makeTLSManager().perform(TestRequest<Echo>(Self.provider(for: origin),
                                                                                Self.redirect(to: other.baseURL + "/echo", status: 307)))
                #expect(echo.path == "/echo")
                #expect(Array(origin.recordedBytes()).containsBytes(Array(Self.bearer.utf8)), "the origin got the token")
                Self.expectNothingSecret(reached: other, "https://127.0.0.1:\(other.port)")
            }
        }
    }

    @Test("HTTPS → HTTP on the same host gets no credential")
    func httpsToHTTPOnTheSameHost() async throws {
        try await withLegitServer { origin in
            try await withTestServer(record: true) { plain in
                let echo = try await makeTLSManager().perform(TestRequest<Echo>(Self.provider(for: origin),
                                                                                Self.redirect(to: plain.baseURL + "/echo", status: 301)))
                #expect(echo.path == "/echo")
                #expect(echo.header("X-Trace") == "kept")
                Self.expectNothingSecret(reached: plain, "http://127.0.0.1:\(plain.port)")
            }
        }
    }

    @Test("Custom API-key header names never reach another origin", arguments: SecretNamesTests.apiKeyHeaderNames)
    func customAPIKeyNames(_ name: String) async throws {
        let origin = try await TestServer.shared()
        try await withTestServer(record: true) { other in
            let echo = try await makeManager().perform(TestRequest<Echo>(Self.provider(for: origin, apiKeyHeader: name),
                                                                         Self.redirect(to: other.baseURL + "/echo")))
            #expect(echo.header(name) == nil)
            Self.expectNothingSecret(reached: other, "\(name) at 127.0.0.1:\(other.port)")
        }
    }

    @Test("A server echoing a query-item credential into a Location of another origin is refused; the other origin gets nothing")
    func aQueryCredentialEchoedIntoTheLocation() async throws {
        try await withTestServer(record: true) { origin in
            try await withTestServer(record: true) { other in
                let provider = origin.secretProvider(authentication: .apiKey(Self.apiKey, queryItem: "subscription"))
                let log = LogCollector()
                let error = await networkError {
                    try await makeManager(log: log).perform(TestRequest<Echo>(provider, Self.redirect(to: other.baseURL + "/echo") + "&echo=subscription"))
                }
                #expect(error?.caseName == "transport")
                #expect(error?.context?.reason?.contains("secret of this request") == true, "\(String(describing: error))")
                #expect(other.recordedBytes().isEmpty, "the other origin received a request")
                #expect(!log.all.contains(where: SecretForms(Self.apiKey).appears))
                // To its own origin, the same echo is followed.
                let same = try await makeManager().perform(TestRequest<Echo>(provider, Self.redirect(to: origin.baseURL + "/echo") + "&echo=subscription"))
                #expect(same.args["leak"] == [Self.apiKey])
            }
        }
    }

    @Test("A server echoing a secret header into a Location of another origin is refused")
    func aHeaderCredentialEchoedIntoTheLocation() async throws {
        try await withTestServer(record: true) { origin in
            try await withTestServer(record: true) { other in
                let error = await networkError {
                    try await makeManager().perform(TestRequest<Echo>(Self.provider(for: origin),
                        Self.redirect(to: other.baseURL + "/echo") + "&echoHeader=Ocp-Apim-Subscription-Key"))
                }
                #expect(error?.caseName == "transport")
                #expect(other.recordedBytes().isEmpty)
            }
        }
    }
}
