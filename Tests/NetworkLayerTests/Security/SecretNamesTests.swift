import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Secrets are facts carried with the request: whatever the authentication added and whatever
/// the manager, the provider or the request declared is redacted in the log, the structured
/// entries, copy-as-curl, errors and recorded sidecars, whatever its name; the list of
/// secret-looking names is only a safety net.
@Suite("Secrets carried with the request", .sharing)
struct SecretNamesTests {
    /// API-key header names real services use. The first ones no list of secret-looking names matches.
    static let apiKeyHeaderNames = ["Ocp-Apim-Subscription-Key", "Subscription-Key", "X-Riot-Token", "X-Goog-Api-Key",
                                    "Private-Token", "X-CMC_PRO_API_KEY", "DD-API-KEY", "X-Parse-REST-API-Key"]

    @Test("The heuristic alone misses real API-key header names, so it cannot be the mechanism")
    func theHeuristicMissesRealNames() {
        #expect(!Redactor.looksSecret(header: "Ocp-Apim-Subscription-Key"))
        #expect(!Redactor.looksSecret(header: "Subscription-Key"))
        #expect(Redactor.looksSecret(header: "Private-Token"))
    }

    @Test("The prepared request carries every secret name: the credentials', the declared ones and the secret-looking ones")
    func thePreparedRequestCarriesTheNames() throws {
        let provider = SecretProvider(port: 1, headers: ["X-Tenant": "t", "X-Session-Id": "s", "Accept": "application/json"],
                                      secretHeaderNames: ["X-Tenant"], secretQueryItemNames: ["tenant_hint"])
        // `access%5Ftoken` is read decoded: `access_token`.
        let request = TestRequest<Echo>(provider, "/echo?page=2&sig=abc&tenant_hint=h&plain=1&access%5Ftoken=z",
                                        headers: ["X-Upload-Ticket": "u"])
        request.secretHeaderNames = ["x-upload-ticket"]
        request.secretQueryItemNames = ["Plain"]
        let credentials = Authentication.Credentials(headers: [("Ocp-Apim-Subscription-Key", "k")],
                                                     queryItems: [("subscription", "q")])
        var settings = Settings()
        settings.redactor = Redactor(names: SecretNames(headers: ["X-Manager"], queryItems: []))
        let prepared = try request.resolved(with: settings).prepare(providerHeaders: provider.headers, credentials: credentials)
        #expect(prepared.secrets.headers == ["ocp-apim-subscription-key", "x-tenant", "x-upload-ticket", "x-session-id", "x-manager"])
        #expect(prepared.secrets.queryItems == ["subscription", "tenant_hint", "plain", "sig", "access_token"])
        #expect(!prepared.secrets.contains(header: "Accept"))
        #expect(!prepared.secrets.contains(queryItem: "page"))
    }

    @Test("An API key in a header of any name is sent, and redacted in the log, the entries, copy-as-curl, errors and sidecars",
          arguments: apiKeyHeaderNames)
    func apiKeyHeaderOfAnyName(_ name: String) async throws {
        let key = "nlKey-\(name.count)-Zq9~Wx"
        let server = try await TestServer.shared()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = LogCollector()
        let entries = LogEntryCollector()
        let net = makeManager(log: log, entries: entries)
        net.mockRecordingDirectory = directory
        let provider = server.secretProvider(authentication: .apiKey(key, header: name))

        let echo = try await net.perform(TestRequest<Echo>(provider, "/echo"))
        #expect(echo.header(name) == key, "the key was sent, so its absence below means something")
        let findings = SecretFindings()
        // A server that quotes the key back in a response header, recorded as a mock, failing.
        let reflected = MockedRequest<Echo>(provider, "/reflect-headers?status=500", mock: "Reflected")
        if let error = await networkError({ try await net.perform(reflected) }) { findings.add(error) }
        findings.add(try await net.curlCommand(for: TestRequest<Echo>(provider, "/echo")))
        let sidecar = try String(contentsOf: directory.appendingPathComponent("Reflected.meta.json"), encoding: .utf8)
        #expect(sidecar.contains("X-Reflected-"), "the reflected headers were recorded: \(sidecar)")

        let forms = SecretForms(key)
        for (place, texts) in [("the log", log.all), ("a log entry", entries.texts), ("an error or the curl command", findings.all),
                               ("the sidecar", [sidecar])] {
            #expect(!texts.contains(where: forms.appears), "\(name): the key appears in \(place)")
        }
        #expect(log.text.contains("\(name): <redacted>"))
    }

    @Test("An API key in a query item of any name is redacted in every URL shown")
    func apiKeyQueryItemOfAnyName() async throws {
        let key = "nlQueryKey~7Rt^p"
        let server = try await TestServer.shared()
        let log = LogCollector()
        let net = makeManager(log: log)
        let provider = server.secretProvider(authentication: .apiKey(key, queryItem: "subscription"))
        let echo = try await net.perform(TestRequest<Echo>(provider, "/echo"))
        #expect(echo.args["subscription"] == [key])
        let findings = SecretFindings()
        if let error = await networkError({ try await net.perform(TestRequest<Echo>(provider, "/status/500")) }) { findings.add(error) }
        let curl = try await net.curlCommand(for: TestRequest<Echo>(provider, "/echo"))
        findings.add(curl)
        #expect(curl.contains("subscription=<redacted>"))
        let forms = SecretForms(key)
        #expect(!log.all.contains(where: forms.appears))
        #expect(!findings.all.contains(where: forms.appears))
    }

    /// Where a name is declared secret: the manager, the provider or the request.
    enum Declared: String, CaseIterable, Sendable {
        case manager, provider, request
    }

    @Test("A header declared secret by the manager, the provider or the request is redacted everywhere and stays at its origin",
          arguments: Declared.allCases)
    func declaredHeader(_ declared: Declared) async throws {
        let value = "nlDeclared-\(declared.rawValue)-Ka^3"
        let server = try await TestServer.shared()
        try await withTestServer(record: true) { other in
            let log = LogCollector()
            let net = makeManager(log: log)
            if declared == .manager { net.redactedHeaderNames = ["X-Tenant-Proof"] }
            let provider = server.secretProvider(headers: ["X-Tenant-Proof": value, "X-Trace": "visible"],
                                                 secretHeaderNames: declared == .provider ? ["x-tenant-proof"] : [])
            func request(_ endpoint: String) -> TestRequest<Echo> {
                let request = TestRequest<Echo>(provider, endpoint)
                if declared == .request { request.secretHeaderNames = ["X-TENANT-PROOF"] }
                return request
            }
            #expect(try await net.perform(request("/echo")).header("X-Tenant-Proof") == value)
            let elsewhere = try await net.perform(request("/redirect-to?url=" + ParameterValue.percentEncode(other.baseURL + "/echo")))
            #expect(elsewhere.header("X-Tenant-Proof") == nil, "the declared header followed the redirect to another origin")
            #expect(elsewhere.header("X-Trace") == "visible", "an ordinary header does follow it")
            let curl = try await net.curlCommand(for: request("/echo"))
            let forms = SecretForms(value)
            #expect(!log.all.contains(where: forms.appears))
            #expect(!forms.appears(in: curl))
            #expect(!forms.appears(in: Array(other.recordedBytes())))
        }
    }

    @Test("A query item declared secret by the provider or the request is redacted in every URL shown",
          arguments: [Declared.provider, .request])
    func declaredQueryItem(_ declared: Declared) async throws {
        let value = "nlHint-\(declared.rawValue)-Q~z9"
        let server = try await TestServer.shared()
        let log = LogCollector()
        let provider = server.secretProvider(secretQueryItemNames: declared == .provider ? ["tenant_hint"] : [])
        let request = TestRequest<Echo>(provider, "/echo", params: ["tenant_hint": value, "page": 2])
        if declared == .request { request.secretQueryItemNames = ["Tenant_Hint"] }
        let echo = try await makeManager(log: log).perform(request)
        #expect(echo.args["tenant_hint"] == [value])
        #expect(log.text.contains("tenant_hint=<redacted>"))
        #expect(log.text.contains("page=2"))
        #expect(!log.all.contains(where: SecretForms(value).appears))
    }

    @Test("A secret-looking header nobody declared is still redacted: the list is a safety net")
    func theSafetyNetStays() async throws {
        let value = "nlSession~Vb71"
        let server = try await TestServer.shared()
        let log = LogCollector()
        _ = try await makeManager(log: log).perform(TestRequest<Echo>(server.provider(headers: ["X-Session-Id": value]), "/echo"))
        #expect(log.text.contains("X-Session-Id: <redacted>"))
        #expect(!log.all.contains(where: SecretForms(value).appears))
    }

    @Test("A server that quotes the key back in its error message does not put it in the error")
    func aServerQuotingTheKeyInAnError() async throws {
        let key = "nlQuoted~Key^41"
        let server = try await TestServer.shared()
        let log = LogCollector()
        let entries = LogEntryCollector()
        var provider = server.secretProvider(authentication: .apiKey(key, header: "Ocp-Apim-Subscription-Key"))
        provider.errorBodyType = MessageErrorBody.self
        let body = #"{"message": "the subscription key \#(key) is not valid"}"#
        let error = await networkError {
            try await makeManager(log: log, entries: entries).perform(TestRequest<Echo>(provider, "/status/403", params: ["body": body]))
        }
        #expect(error?.caseName == "unauthorizedAccess")
        #expect(error?.errorDescription?.contains("is not valid") == true, "the server's message is shown: \(String(describing: error))")
        // Every text the library wrote. (The decoded MessageErrorBody is the app's own value,
        // kept as it came: its dump shows the message as the server sent it.)
        let texts = [error?.errorDescription, error?.failureReason, error?.recoverySuggestion, error?.context?.request,
                     error?.context?.reason, error?.context?.response.map { String(reflecting: $0) }].compactMap { $0 }
        #expect(!texts.contains(where: SecretForms(key).appears), "\(texts)")
        #expect(!log.all.contains(where: SecretForms(key).appears))
        #expect(!entries.texts.contains(where: SecretForms(key).appears))
        #expect(entries.all.contains { $0.phase == .failure })
    }

    @Test("A server that echoes a secret under another name has it scrubbed from the response preview")
    func anEchoedSecretIsScrubbedFromThePreview() async throws {
        let key = "nlEchoed \"Key\"/\\é~9"  // a quote, a slash, a backslash and non-ASCII: JSON escapes them
        let server = try await TestServer.shared()
        let log = LogCollector()
        let provider = server.secretProvider(authentication: .apiKey(key, queryItem: "subscription"))
        let echo = try await makeManager(log: log).perform(TestRequest<Echo>(provider, "/echo"))
        #expect(echo.args["subscription"] == [key])
        #expect(log.text.contains("\"args\""), "the preview was logged")
        #expect(!log.all.contains(where: SecretForms(key).appears))
    }

    @Test("A secret spelled with percent-escapes no encoder makes is scrubbed from the log, its entries and the HAR")
    func aPercentSpelledSecretIsScrubbed() async throws {
        let key = "nlSpelledKey7Rt9p"
        let spelled = "%6elSp%65lledK%65y7Rt9%70"   // the key, four letters escaped
        let server = try await TestServer.shared()
        let log = LogCollector()
        let entries = LogEntryCollector()
        let net = makeManager(log: log, entries: entries)
        net.recordsTraffic = true
        let provider = server.secretProvider(authentication: .apiKey(key, queryItem: "subscription"))
        // The caller's URL holds the spelling inside a query item (escaped twice); the server's
        // `Location` holds it escaped once, and so does the URL the redirect is followed to.
        let echo = try await net.perform(TestRequest<Echo>(provider, "/redirect-to",
                                                           params: ["url": "/echo?note=\(spelled)", "status": "302"]))
        #expect(echo.args["note"] == [key], "the server decoded the spelling to the key: the test means something")
        let har = String(decoding: try net.recordedTraffic.har(), as: UTF8.self)
        #expect(har.contains("redirectURL"))
        for text in log.all + entries.texts + [har] {
            #expect(!spellsSecret(key, in: text.utf8), "\(text.prefix(300))")
        }
    }

    // MARK: The name rules and standard headers

    /// Standard headers whose names hold a word the name rules look for (auth, credential,
    /// signature) and whose values are public by design, with a value each as servers send it.
    static let publicStandardHeaders: KeyValuePairs<String, String> = [
        "Access-Control-Allow-Credentials": "true",
        "WWW-Authenticate": #"Bearer realm="api", error="invalid_token""#,
        "Proxy-Authenticate": #"Basic realm="proxy""#,
        "Optional-WWW-Authenticate": #"Digest realm="api", nonce="n0nce-public""#,
        "Authentication-Control": #"Digest location-when-unauthenticated="https://example.com/login""#,
        "Signature-Input": #"sig1=("@method" "@authority");created=1618884473;keyid="test-key-rsa-pss""#,
        "Accept-Signature": #"sig1=("@method" "@target-uri");keyid="test-key-rsa-pss""#,
    ]

    /// Standard and common headers that carry a secret, still redacted by their names alone.
    static let secretStandardHeaders: KeyValuePairs<String, String> = [
        "Authorization": "Bearer nlsecret-authorization",
        "Proxy-Authorization": "Basic nlsecret-proxy-authorization",
        "Cookie": "sid=nlsecret-cookie",
        "Set-Cookie": "sid=nlsecret-set-cookie; Path=/",
        "Authentication-Info": #"rspauth="nlsecret-rspauth", nextnonce="x""#,
        "Proxy-Authentication-Info": #"rspauth="nlsecret-proxy-rspauth""#,
        "Signature": "sig1=:nlsecret-signature:",
        "X-Auth-Token": "nlsecret-x-auth-token",
        "X-CSRF-Token": "nlsecret-csrf",
        "X-Api-Key": "nlsecret-api-key",
    ]

    @Test("Standard public headers whose names hold auth, credential or signature are not redacted by the name rules, in any case")
    func publicStandardHeadersAreNotRedacted() async throws {
        for (name, _) in Self.publicStandardHeaders {
            for spelling in [name, name.lowercased(), name.uppercased()] {
                #expect(!Redactor.looksSecret(header: spelling), "\(spelling)")
            }
        }
        let server = try await TestServer.shared()
        let log = LogCollector()
        let entries = LogEntryCollector()
        let query = Self.publicStandardHeaders.map { "h=" + ParameterValue.percentEncode("\($0.key): \($0.value)") }
        _ = try await makeManager(log: log, entries: entries)
            .perform(TestRequest<JSONValue>(server.provider(), "/response-headers?" + query.joined(separator: "&")))
        let response = try #require(entries.all.first { $0.phase == .response && $0.level == .info })
        for (name, value) in Self.publicStandardHeaders {
            #expect(log.text.contains("  \(name): \(value)\n"), "\(name) in \(log.text)")
            #expect(response.headers.contains(.init(name: name, value: value)), "\(name) in \(response.headers)")
        }
    }

    @Test("Secret standard headers stay redacted by their names alone: Authorization, Cookie, Set-Cookie, Authentication-Info, Signature…")
    func secretStandardHeadersStayRedacted() async throws {
        let server = try await TestServer.shared()
        let log = LogCollector()
        let entries = LogEntryCollector()
        let query = Self.secretStandardHeaders.map { "h=" + ParameterValue.percentEncode("\($0.key): \($0.value)") }
        let response = try await makeManager(log: log, entries: entries)
            .perform(TestRequest<JSONValue>(server.provider(), "/response-headers?" + query.joined(separator: "&")))
        #expect(response["headers"]?[0]?[0]?.stringValue == "Authorization", "the server sent them")
        for (name, _) in Self.secretStandardHeaders {
            #expect(Redactor.looksSecret(header: name), "\(name)")
            // (The values themselves are in the request's query and the echoed body: only the header lines are looked at.)
            #expect(log.text.contains("  \(name): <redacted>\n"), "\(name) in \(log.text)")
            #expect(entries.all.contains { $0.phase == .response && $0.headers.contains(.init(name: name, value: "<redacted>")) }, "\(name)")
        }
    }

    @Test("A public standard header declared secret by the user is redacted all the same: the declaration is a fact")
    func declaredPublicHeaderIsRedacted() async throws {
        let server = try await TestServer.shared()
        let log = LogCollector()
        let net = makeManager(log: log)
        net.redactedHeaderNames = ["www-authenticate"]
        _ = try await net.perform(TestRequest<JSONValue>(server.provider(), "/response-headers?h=WWW-Authenticate%3A%20Bearer"))
        #expect(log.text.contains("  WWW-Authenticate: <redacted>\n"), "\(log.text)")
    }
}

/// The fragment search of the safety net is a byte search for ASCII names: it must answer as
/// Foundation's `contains` did for every name, ASCII or not.
@Suite("Secret fragments found as Foundation finds them", .sharing)
struct SecretFragmentSearchTests {
    static func foundationAnswer(_ lower: String) -> Bool {
        Redactor.secretFragments.contains { lower.contains($0) }
    }

    @Test("Fixed names: at the start, the end, the middle, split, almost, empty, non-ASCII")
    func fixedNames() {
        let names = ["token", "x-token", "x-auth-token", "authorization", "my_api_key_v2", "apikey", "api-ke", "tok en",
                     "sessionid", "x-credentials", "set-cookie", "signatures", "passw", "", "a", "é-token", "tökén",
                     "x-\u{212A}ey", "secre\u{0301}t", "aut\u{0127}", "auth\u{0000}", "🔑token", "accept", "content-type"]
        for name in names {
            let lower = name.lowercased()
            #expect(Redactor.holdsSecretFragment(lower) == Self.foundationAnswer(lower), "\(name.debugDescription)")
        }
        #expect(Redactor.holdsSecretFragment("x-auth-token"))
        #expect(!Redactor.holdsSecretFragment("content-type"))
    }

    @Test("Random names built from fragment pieces and other characters, ASCII and not, answer alike")
    func randomNames() {
        var generator = SystemRandomNumberGenerator()
        let pieces = Redactor.secretFragments + ["to", "ken", "sec", "ret", "-", "_", "x", "a", "é", "\u{0301}", "K", "İ", "😀", " "]
        var found = 0
        for _ in 0..<20_000 {
            let name = (0..<Int.random(in: 0...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let lower = name.lowercased()
            let answer = Self.foundationAnswer(lower)
            if answer { found += 1 }
            #expect(Redactor.holdsSecretFragment(lower) == answer, "\(name.debugDescription)")
        }
        #expect(found > 1_000 && found < 19_000, "the names hold a fragment \(found) times in 20,000: the check must see both answers")
    }
}
