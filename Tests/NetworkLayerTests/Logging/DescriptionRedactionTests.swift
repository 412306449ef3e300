import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What a user prints is redacted (issue 28): `print(error.context?.response)`,
/// `String(reflecting: response)`, `dump(error)` or a failed `#expect` show no secret a request
/// carried, while the raw members (`response.url`, `headers`, `body`) keep what was sent and
/// received (pagination reads the URL).
///
/// A request carries a secret every way one can (an API key and a declared secret item in the
/// query, a bearer token, a declared secret header and a secret-looking one, a secret JSON body
/// field) to a real server that echoes all of it back, in its body and in its headers; then every
/// public value the library handed out, or that holds a URL, a header or a credential, is turned
/// into text every way Swift does it, and no secret may appear in any of them.
@Suite("Redacted descriptions", .sharing)
struct DescriptionRedactionTests {
    static let token = "nlDescToken7f3a"
    static let apiKey = "nlDescApiKey2c9e"
    static let tenant = "nlDescTenant5b1d"
    static let tenantHeader = "nlDescTenantHdr8e4f"
    static let session = "nlDescSession3a7c"
    static let password = "nlDescPassword6d2b"
    static let refreshed = "nlDescRefreshed9a3b"
    static let cookie = "nlDescCookie1f8e"
    static let proxyPassword = "nlDescProxyPw4c6a"
    static let proxyURLPassword = "nlDescProxyUrl0b5d"
    static let mockCookie = "nlDescMockCookie2e7f"
    static let formPassword = "nlDescFormPw3d9c"

    static var secrets: [String] {
        [token, apiKey, tenant, tenantHeader, session, password, refreshed, cookie, proxyPassword, proxyURLPassword,
         mockCookie, formPassword]
    }

    struct Login: Codable, Sendable {
        let user: String
        let password: String
    }

    /// The last outgoing request `adapt(_:)` saw.
    final class OutgoingCapture: Sendable {
        let last = Protected<OutgoingRequest?>(nil)
    }

    /// A provider carrying every kind of secret, keeping the outgoing request its `adapt` saw.
    struct SecretsProvider: ServiceProvider {
        let port: Int
        let capture: OutgoingCapture
        var host: String { "127.0.0.1" }
        var httpScheme: HTTPScheme { .http }
        var authentication: Authentication? { .bearer(DescriptionRedactionTests.token) }
        var secretHeaderNames: Set<String> { ["X-Tenant-Key"] }
        var secretQueryItemNames: Set<String> { ["tenant"] }
        func createHTTPHeaders() -> [String: String] {
            ["X-Tenant-Key": DescriptionRedactionTests.tenantHeader, "X-Session-Token": DescriptionRedactionTests.session,
             "Accept": "application/json"]
        }
        func adapt(_ request: inout OutgoingRequest) async throws {
            let copy = request
            capture.last.withLock { $0 = copy }
        }
    }

    /// The endpoint with both secret query items.
    static func endpoint(_ path: String) -> String { "\(path)\(path.contains("?") ? "&" : "?")api_key=\(apiKey)&tenant=\(tenant)" }

    /// A request with every secret aboard, its body a JSON object with a password.
    static func request<Response>(_ provider: SecretsProvider, _ path: String, as: Response.Type = Response.self) -> BaseRequest<Response> {
        let request = TestRequest<Response>(provider, endpoint(path), method: .post)
        request.body = .json(Login(user: "ada", password: password))
        return request
    }

    /// Every way Swift turns `value` into text.
    static func renderings(of value: Any) -> [(form: String, text: String)] {
        var dumped = ""
        dump(value, to: &dumped)
        var forms = [("String(describing:)", String(describing: value)), ("String(reflecting:)", String(reflecting: value)),
                     ("dump", dumped), ("dump's byte lists", bytesListed(in: dumped)), ("interpolation", "\(value)")]
        if let described = value as? any CustomStringConvertible { forms.append(("description", described.description)) }
        if let debug = value as? any CustomDebugStringConvertible { forms.append(("debugDescription", debug.debugDescription)) }
        if let error = value as? any Error {
            forms.append(("localizedDescription", error.localizedDescription))
            if let localized = error as? any LocalizedError {
                forms += [("errorDescription", localized.errorDescription ?? ""), ("failureReason", localized.failureReason ?? ""),
                          ("recoverySuggestion", localized.recoverySuggestion ?? "")]
            }
        }
        return forms
    }

    /// The bytes `dump` lists one per line (`- 110` for each element of a `[UInt8]`: a header block
    /// kept as bytes), each run of such lines as text, so that a secret listed byte by byte is found too.
    static func bytesListed(in dumped: String) -> String {
        var runs: [[UInt8]] = [[]]
        for line in dumped.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("- "), let byte = UInt8(trimmed.dropFirst(2)) {
                runs[runs.count - 1].append(byte)
            } else if !(runs.last ?? []).isEmpty {
                runs.append([])
            }
        }
        return runs.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
    }

    /// Records an issue for each secret found in a rendering of `value`; returns how many renderings there were.
    @discardableResult
    static func expectNoSecret(in value: Any, named name: String, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        let renderings = renderings(of: value)
        for (form, text) in renderings {
            for secret in secrets where SecretForms(secret).appears(in: text) {
                Issue.record("\(secret) appears in the \(form) of \(name): \(text)", sourceLocation: sourceLocation)
            }
        }
        return renderings.count
    }

    @Test("No description, debug description, reflection or dump of a response, an error, its context, an outgoing or recorded request, a log entry or a stream shows a secret the request carried")
    func requestValuesAreRedacted() async throws {
        let server = try await TestServer.shared()
        let capture = OutgoingCapture()
        // The captured request holds its provider, which holds the capture: a cycle this test
        // makes, broken at the end (make asan's leak check found it).
        defer { capture.last.withLock { $0 = nil } }
        let provider = SecretsProvider(port: server.port, capture: capture)
        let entries = LogEntryCollector()
        let log = LogCollector()
        let net = makeManager(log: log, entries: entries)
        var values: [(String, Any)] = []

        // A success: the server echoes the query, the headers and the body back in its body.
        let (echo, response) = try await net.performWithResponse(Self.request(provider, "/echo", as: Echo.self))
        #expect(echo.header("Authorization") == "Bearer \(Self.token)" && echo.header("X-Tenant-Key") == Self.tenantHeader)
        #expect(echo.body.contains(Self.password) && echo.query.contains(Self.apiKey))
        // The raw members stay raw.
        #expect(response.url.query?.contains(Self.apiKey) == true)
        #expect(String(decoding: response.body, as: UTF8.self).contains(Self.token))
        values.append(("HTTPResponse", response))
        let outgoing = try #require(capture.last.withLock { $0 })
        #expect(outgoing.value(forHeader: "Authorization") == "Bearer \(Self.token)")
        #expect(outgoing.url.absoluteString.contains(Self.apiKey) && outgoing.body.map { String(decoding: $0, as: UTF8.self) }?.contains(Self.password) == true)
        values.append(("OutgoingRequest", outgoing))

        // A failure whose response carries every request header back as a response header.
        let error = try #require(await networkError { try await net.perform(Self.request(provider, "/reflect-headers?status=401", as: Echo.self)) })
        let context = try #require(error.context)
        let failed = try #require(context.response)
        #expect(failed.url.query?.contains(Self.apiKey) == true, "error.context?.response?.url stays raw: pagination reads it")
        #expect(failed.headers.values.contains(Self.tenantHeader), "the server reflected the secret header: \(failed.headers)")
        values += [("NetworkError", error), ("NetworkError.Context", context), ("the error's HTTPResponse", failed)]
        // A failure without a response: nothing listens on the port.
        let unreachable = SecretsProvider(port: try closedPort(), capture: capture)
        let refused = try #require(await networkError { try await net.perform(Self.request(unreachable, "/echo", as: Echo.self)) })
        values += [("NetworkError (refused)", refused), ("CurlError", refused.underlyingError as Any)]

        // Streams, each holding its response and its request.
        let bytes = try await net.perform(Self.request(provider, "/echo", as: ByteStream.self))
        let lines = try await net.perform(Self.request(provider, "/echo", as: JSONLines<Echo>.self))
        let events = try await net.perform(Self.request(provider, "/echo", as: EventStream.self))
        values += [("ByteStream", bytes), ("ByteStream.Lines", bytes.lines), ("JSONLines", lines), ("EventStream", events),
                   ("ByteStream.AsyncIterator", bytes.makeAsyncIterator()), ("JSONLines.AsyncIterator", lines.makeAsyncIterator())]
        var echoed: [Echo] = []
        for try await value in lines { echoed.append(value) }
        #expect(echoed.first?.body.contains(Self.password) == true)

        // The same request in mock mode, recorded.
        let mocked = makeManager()
        mocked.areMocksEnabled = true
        mocked.mocks.register(.post, "/echo", .json(Login(user: "ada", password: "mocked"),
                                                    headers: ["Set-Cookie": "sid=\(Self.mockCookie)"]))
        _ = try await mocked.perform(Self.request(provider, "/echo", as: Login.self))
        let recorded = try #require(mocked.mocks.requests.last)
        #expect(recorded.value(forHeader: "X-Session-Token") == Self.session && recorded.url.absoluteString.contains(Self.tenant))
        values += [("RecordedRequest", recorded), ("MockRegistry", mocked.mocks), ("NetworkManager (mocked)", mocked)]

        // The log entries: redacted when they were made.
        #expect(entries.all.count >= 6)
        for entry in entries.all { values.append(("NetworkLogEntry \(entry.phase) \(entry.level)", entry)) }
        // The request object itself, and its body.
        let request = Self.request(provider, "/echo", as: Echo.self)
        values += [("BaseRequest", request), ("RequestBody", request.body as Any)]
        #expect(String(describing: request).hasSuffix("TestRequest<NetworkLayerTests.Echo>"), "print(request) names its own class")

        var renderings = 0
        for (name, value) in values { renderings += Self.expectNoSecret(in: value, named: name) }
        #expect(renderings >= values.count * 5)
        #expect(!log.text.isEmpty)
        for secret in Self.secrets { #expect(!log.text.contains(secret), "\(secret) in the log") }
    }

    @Test("Values that hold a credential, a cookie, a proxy's password or a secret form field describe themselves redacted")
    func credentialHoldersAreRedacted() async throws {
        let source = BearerTokenSource(token: { "nlDescUnusedToken" }, refresh: { DescriptionRedactionTests.refreshed })
        #expect(try await source.token(replacing: "stale") == Self.refreshed)  // now cached in the source
        let net = NetworkManager()
        net.isVerbose = false
        net.proxy = .http(URL(string: "http://proxy-user:\(Self.proxyURLPassword)@127.0.0.1:3128")!, username: "ada",
                          password: Self.proxyPassword)
        let values: [(String, Any)] = [
            ("Authentication.bearer", Authentication.bearer(Self.token)),
            ("Authentication.bearer(source)", Authentication.bearer(source)),
            ("Authentication.basic", Authentication.basic(username: "ada", password: Self.password)),
            ("Authentication.apiKey header", Authentication.apiKey(Self.apiKey)),
            ("Authentication.apiKey query", Authentication.apiKey(Self.apiKey, queryItem: "api_key")),
            ("BearerTokenSource", source),
            ("Cookie", Cookie(name: "sid", value: Self.cookie, domain: "127.0.0.1")),
            ("ProxyConfiguration", net.proxy),
            ("ProxyConfiguration.socks5", ProxyConfiguration.socks5(URL(string: "socks5h://u:\(Self.proxyURLPassword)@127.0.0.1:1080")!)),
            ("NetworkManager", net),
            ("MockResponse", MockResponse.data(Data("{}".utf8), headers: ["Set-Cookie": "sid=\(Self.mockCookie)"])),
            ("MockResponse.json", MockResponse.json(Login(user: "ada", password: Self.password))),
            ("MultipartFormData", MultipartFormData().text("user", "ada").text("password", Self.formPassword)),
            ("RequestBody.multipart", RequestBody.multipart(MultipartFormData().text("password", Self.formPassword))),
            ("RequestBody.form", RequestBody.form(["password": Self.formPassword])),
            ("RequestBody.json(object:)", RequestBody.json(object: ["password": Self.password])),
        ]
        for (name, value) in values { Self.expectNoSecret(in: value, named: name) }
    }
}
