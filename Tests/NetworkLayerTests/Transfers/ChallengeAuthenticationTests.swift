import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What httpbin's `/digest-auth` answers once authenticated.
struct DigestAnswer: Decodable, Sendable {
    let authenticated: Bool
    let user: String
}

/// What `auth_server.py`'s `/ntlm` answers once the handshake completes.
struct NTLMAnswer: Decodable, Sendable {
    let user: String
    let connection: Int
    /// The server's count of requests, with `?cacheable`: a response served from the cache repeats it.
    var answer: Int?
}

/// A user file for pyspnego's NTLM acceptor, with two users.
private func ntlmUserFile() throws -> URL {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("ntlm-users-\(UUID().uuidString.prefix(8))")
    try Data("CORP:alice:s3cret-Passw0rd\nCORP:bob:b0b-Passw0rd\n".utf8).write(to: file)
    return file
}

@Suite("Digest, NTLM and Negotiate", .sharing)
struct ChallengeAuthenticationTests {
    @Test("Digest with MD5 and SHA-256 (qop=auth) against httpbin's /digest-auth", arguments: ["MD5", "SHA-256"])
    func digest(algorithm: String) async throws {
        let httpbin = try await HTTPBinServer.shared()
        let provider = AuthProvider(port: httpbin.port, authentication: .digest(user: "ada", password: "s3cret-Passw0rd"))
        let answer = try await makeManager().perform(TestRequest<DigestAnswer>(provider, "/digest-auth/auth/ada/s3cret-Passw0rd/\(algorithm)"))
        #expect(answer.authenticated && answer.user == "ada")

        let wrong = AuthProvider(port: httpbin.port, authentication: .digest(user: "ada", password: "wrong-password"))
        let error = await networkError {
            try await makeManager().perform(TestRequest<DigestAnswer>(wrong, "/digest-auth/auth/ada/s3cret-Passw0rd/\(algorithm)"))
        }
        guard case .unauthorizedAccess = error else { Issue.record("got \(String(describing: error))"); return }
    }

    @Test("Each request answers the Digest challenge once, on one kept-alive connection, as curl does (auth_server.py checks the MD5 answer)")
    func digestOncePerRequestOnOneConnection() async throws {
        struct Answer: Decodable { let user: String; let nc: String }
        struct Counts: Decodable { let challenges: Int; let answered: Int; let connections: Int }
        try await withVenvServer("auth_server.py") { server in
            let provider = AuthProvider(port: server.port, authentication: .digest(user: "ada", password: "s3cret-Passw0rd"))
            let net = makeManager()
            for _ in 0..<3 {
                let answer = try await net.perform(TestRequest<Answer>(provider, "/digest"))
                #expect(answer.user == "ada" && answer.nc == "00000001")
            }
            let counts = try await net.perform(TestRequest<Counts>(TestProvider(host: "127.0.0.1", httpScheme: .http, port: server.port), "/digest-count"))
            #expect(counts.challenges == 3 && counts.answered == 3, "\(counts)")
            #expect(counts.connections == 1, "the challenge was answered on \(counts.connections) connections")
        }
    }

    @Test("A server that calls every nonce stale is given up after a few rounds, not asked forever")
    func staleNonceLoop() async throws {
        try await withVenvServer("auth_server.py") { server in
            let provider = AuthProvider(port: server.port, authentication: .digest(user: "ada", password: "s3cret-Passw0rd"))
            let net = makeManager()
            let error = await networkError { try await net.perform(TestRequest<DigestAnswer>(provider, "/digest-stale")) }
            guard case .unauthorizedAccess = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(error?.errorDescription?.contains("gave up") == true, "\(error?.errorDescription ?? "")")
            struct Count: Decodable { let count: Int }
            let count = try await net.perform(TestRequest<Count>(TestProvider(host: "127.0.0.1", httpScheme: .http, port: server.port), "/count"))
            #expect(count.count <= CurlTransfer.maximumChallenges + 2, "the server was asked \(count.count) times")
        }
    }

    @Test("Absurd Digest challenges (a 64 KB nonce, an unknown algorithm, broken quoting) end in a clear 401",
          arguments: ["huge", "unknown", "broken"])
    func absurdChallenges(kind: String) async throws {
        try await withVenvServer("auth_server.py") { server in
            let provider = AuthProvider(port: server.port, authentication: .digest(user: "ada", password: "s3cret-Passw0rd"))
            let error = await networkError {
                try await makeManager().perform(TestRequest<DigestAnswer>(provider, "/digest-absurd", params: ["kind": kind]))
            }
            guard case .unauthorizedAccess = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(error?.statusCode == 401)
        }
    }

    @Test("A Digest challenge without a nonce is an error that says so, and that other credentials will not help")
    func challengeWithoutNonce() async throws {
        try await withVenvServer("auth_server.py") { server in
            let provider = AuthProvider(port: server.port, authentication: .digest(user: "ada", password: "s3cret-Passw0rd"))
            let error = await networkError {
                try await makeManager().perform(TestRequest<DigestAnswer>(provider, "/digest-absurd", params: ["kind": "no-nonce"]))
            }
            guard case .unauthorizedAccess = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(error?.statusCode == 401)
            #expect(error?.errorDescription?.contains("Digest challenge (WWW-Authenticate) is malformed: it has no nonce") == true,
                    "\(error?.errorDescription ?? "")")
            #expect(error?.recoverySuggestion?.contains("Other credentials will not help") == true, "\(error?.recoverySuggestion ?? "")")
            // A server that answers 401 to a challenge that had its nonce still points at the credentials.
            let plain = await networkError { try await makeManager().perform(TestRequest<DigestAnswer>(provider, "/digest-stale")) }
            #expect(plain?.recoverySuggestion?.contains("Other credentials") == false)
        }
    }

    @Test("Which WWW-Authenticate lines offer Digest without a nonce", arguments: [
        (["Digest realm=\"r\", qop=\"auth\""], true),
        (["Digest realm=\"r\", nonce=\"abc\", qop=\"auth\""], false),
        (["digest NONCE = \"abc\""], false),
        (["Basic realm=\"r\", Digest realm=\"r\", qop=\"auth\""], true),
        (["Basic realm=\"r\"", "Digest realm=\"r\", nonce=\"abc\""], false),
        (["Digest realm=\"a, nonce=b\", qop=auth"], true),
        (["Digest realm=\"r\\\", nonce=x\", qop=auth"], true),
        (["Digest"], true),
        (["Basic realm=\"nonce=1\"", "Negotiate"], false),
        ([], false),
    ])
    func digestWithoutNonce(lines: [String], lacksNonce: Bool) {
        #expect(Authentication.digestChallengeLacksNonce(lines) == lacksNonce, "\(lines)")
    }

    @Test("NTLM completes its handshake on one connection against pyspnego's acceptor; a wrong password is a 401")
    func ntlm() async throws {
        let users = try ntlmUserFile()
        defer { try? FileManager.default.removeItem(at: users) }
        try await withVenvServer("auth_server.py", ["--ntlm-user-file", users.path]) { server in
            let provider = AuthProvider(port: server.port, authentication: .ntlm(user: "CORP\\alice", password: "s3cret-Passw0rd"))
            let answer = try await makeManager().perform(TestRequest<NTLMAnswer>(provider, "/ntlm"))
            #expect(answer.user == "CORP\\alice")

            let wrong = AuthProvider(port: server.port, authentication: .ntlm(user: "CORP\\alice", password: "not-the-password"))
            let error = await networkError { try await makeManager().perform(TestRequest<NTLMAnswer>(wrong, "/ntlm")) }
            guard case .unauthorizedAccess = error else { Issue.record("got \(String(describing: error))"); return }
        }
    }

    @Test("The response cache keys a response by the user and password libcurl answered with: never served to another user or a wrong password")
    func cachedPerUser() async throws {
        let users = try ntlmUserFile()
        defer { try? FileManager.default.removeItem(at: users) }
        try await withVenvServer("auth_server.py", ["--ntlm-user-file", users.path]) { server in
            let net = makeCachingManager()
            func fetch(_ user: String, _ password: String) async throws(NetworkError) -> (NTLMAnswer, CacheStatus?) {
                let provider = AuthProvider(port: server.port, authentication: .ntlm(user: user, password: password))
                let (answer, response) = try await net.performWithResponse(TestRequest<NTLMAnswer>(provider, "/ntlm?cacheable"))
                return (answer, response.cacheStatus)
            }
            let (alice, aliceStatus) = try await fetch("CORP\\alice", "s3cret-Passw0rd")
            #expect(alice.user == "CORP\\alice" && aliceStatus == .miss)
            let (again, againStatus) = try await fetch("CORP\\alice", "s3cret-Passw0rd")
            #expect(againStatus == .hit && again.answer == alice.answer)
            let (bob, bobStatus) = try await fetch("CORP\\bob", "b0b-Passw0rd")
            #expect(bob.user == "CORP\\bob" && bobStatus == .miss, "bob was served alice's response")
            let wrong = await networkError { _ = try await fetch("CORP\\alice", "not-the-password") }
            guard case .unauthorizedAccess = wrong else { Issue.record("a wrong password got \(String(describing: wrong))"); return }
        }
    }

    @Test("Negotiate without a Kerberos ticket leaves the server's 401 standing; copy-as-curl says --negotiate -u ':'")
    func negotiateWithoutTicket() async throws {
        try await withVenvServer("auth_server.py") { server in
            let provider = AuthProvider(port: server.port, authentication: .negotiate)
            let net = makeManager()
            let error = await networkError { try await net.perform(TestRequest<DigestAnswer>(provider, "/negotiate")) }
            guard case .unauthorizedAccess = error else { Issue.record("got \(String(describing: error))"); return }
            let command = try await net.curlCommand(for: TestRequest<DigestAnswer>(provider, "/negotiate"))
            #expect(command.contains("--negotiate -u ':'"), "\(command)")
            #expect(String(describing: Authentication.negotiate) == "Authentication.negotiate")
        }
    }

    @Test("A libcurl without NTLM or SPNEGO is a clear error, naming what is missing")
    func missingFeature() {
        #expect(CurlTransfer.missingFeature(for: .ntlm, features: 0)?.contains("built without NTLM") == true)
        #expect(CurlTransfer.missingFeature(for: .negotiate, features: 0)?.contains("SPNEGO") == true)
        #expect(CurlTransfer.missingFeature(for: .digest, features: 0) == nil)
        // This machine's libcurl has both (`curl -V`: NTLM, SPNEGO).
        #expect(CurlTransfer.missingFeature(for: .ntlm, features: CurlTransfer.features) == nil)
        #expect(CurlTransfer.missingFeature(for: .negotiate, features: CurlTransfer.features) == nil)
    }

    @Test("The credentials go to the provider's origin only: another origin's challenge after a redirect is not answered")
    func credentialsStayAtTheOrigin() async throws {
        try await withVenvServer("auth_server.py") { elsewhere in
            try await withTestServer { server in
                let provider = AuthProvider(port: server.port, authentication: .digest(user: "ada", password: "s3cret-Passw0rd"))
                let target = "http://127.0.0.1:\(elsewhere.port)/digest-stale"
                let net = makeManager()
                let error = await networkError {
                    try await net.perform(TestRequest<DigestAnswer>(provider, "/redirect-to", params: ["url": target]))
                }
                guard case .unauthorizedAccess = error else { Issue.record("got \(String(describing: error))"); return }
                struct Count: Decodable { let count: Int }
                let count = try await net.perform(TestRequest<Count>(TestProvider(host: "127.0.0.1", httpScheme: .http, port: elsewhere.port), "/count"))
                #expect(count.count == 2, "the other origin's challenge was answered: \(count.count - 1) requests")
            }
        }
    }

    @Test("The password never reaches the log, an error, the description or copy-as-curl (unless asked unredacted); the user name is shown",
          arguments: [Authentication.digest(user: "ada-the-user", password: "s3cret-Passw0rd"),
                      Authentication.ntlm(user: "CORP\\ada-the-user", password: "s3cret-Passw0rd")])
    func redaction(authentication: Authentication) async throws {
        try await withTestServer { server in
            let log = LogCollector()
            let net = makeManager(log: log)
            let provider = AuthProvider(port: server.port, authentication: authentication)
            let error = await networkError { try await net.perform(TestRequest<Echo>(provider, "/status/401")) }
            let texts = [log.text, error?.errorDescription ?? "", String(describing: error as Any), String(describing: authentication),
                         try await net.curlCommand(for: TestRequest<Echo>(provider, "/echo"))]
            for text in texts {
                #expect(!text.contains("s3cret-Passw0rd"), "\(text)")
            }
            #expect(texts[3].contains("ada-the-user") && texts[4].contains("ada-the-user:<redacted>"), "\(texts[3]) \(texts[4])")
            let unredacted = try await net.curlCommand(for: TestRequest<Echo>(provider, "/echo"), redactingSecrets: false)
            #expect(unredacted.contains("-u '") && unredacted.contains(":s3cret-Passw0rd'"), "\(unredacted)")
        }
    }

    @Test("A user name or password with a control character is refused before anything is sent")
    func controlCharacters() async throws {
        try await withTestServer(record: true) { server in
            let provider = AuthProvider(port: server.port, authentication: .digest(user: "ada\r\nX-Injected: 1", password: "p"))
            let error = await networkError { try await makeManager().perform(TestRequest<Echo>(provider, "/echo")) }
            guard case .invalidRequest = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(server.recordedBytes().isEmpty)
        }
    }
}
