import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A user name is not a secret (curl, Alamofire and browsers show it); the password beside it is
/// (issue 48). So the log, the HAR and errors show `/digest-auth/auth/user/<redacted>`, a body's
/// `"user" : "user"`, and ordinary words that hold a short user name stay whole.
@Suite("User names are shown, the passwords beside them hidden", .sharing)
struct UserNameRedactionTests {
    @Test("Digest user/passwd against httpbin: the user name in the URL and the body is shown, the password hidden, true stays true")
    func digestUserIsShownPasswordHidden() async throws {
        let sinks = try SecretSinks()
        let httpbin = try await HTTPBinServer.shared()
        let provider = AuthProvider(port: httpbin.port, authentication: .digest(user: "user", password: "passwd"))
        let answer = try await sinks.net.perform(TestRequest<DigestAnswer>(provider, "/digest-auth/auth/user/passwd"))
        #expect(answer.authenticated && answer.user == "user")
        // Refused: httpbin expects another password at this path.
        let error = await networkError { try await sinks.net.perform(TestRequest<DigestAnswer>(provider, "/digest-auth/auth/user/other-pw")) }
        #expect(error?.caseName == "unauthorizedAccess")
        if let error { sinks.findings.add(error) }

        let log = sinks.log.text
        #expect(log.contains("GET http://127.0.0.1:\(httpbin.port)/digest-auth/auth/user/<redacted>"), "\(log)")
        #expect(log.contains("\"authenticated\" : true") && log.contains("\"user\" : \"user\""), "\(log)")
        let har = String(decoding: try sinks.net.recordedTraffic.har(), as: UTF8.self)
        #expect(har.contains("/digest-auth/auth/user/<redacted>"), "\(har.prefix(2000))")
        #expect(error?.errorDescription?.contains("/digest-auth/auth/user/other-pw") == true, "\(String(describing: error))")
        for (place, text) in try sinks.places() {
            #expect(!text.contains("passwd"), "the password is in \(place): \(text.prefix(2000))")
        }
    }

    @Test("A short user name does not make ordinary words disappear; a secret-looking field's number is still hidden")
    func shortUserNameLeavesWordsAlone() async throws {
        let sinks = try SecretSinks()
        let server = try await TestServer.shared()
        let provider = AuthProvider(port: server.port, authentication: .digest(user: "user", password: "s3cret-Passw0rd"))
        let body = #"{"note": "the user is a superuser", "authenticated": true, "auth_code": 123456, "password": null}"#
        _ = try await sinks.net.perform(TestRequest<JSONValue>(provider, "/status/200", params: ["body": body]))
        let log = sinks.log.text
        #expect(log.contains("\"note\" : \"the user is a superuser\""), "\(log)")
        #expect(log.contains("\"authenticated\" : true") && log.contains("\"password\" : null"), "\(log)")
        #expect(log.contains("\"auth_code\" : \"<redacted>\""), "\(log)")
    }

    @Test("A proxy's password is a secret wherever it appears (here the URL's path); its user name is not")
    func proxyPasswordIsScrubbed() async throws {
        let server = try await TestServer.shared()
        let log = LogCollector()
        let net = makeManager(log: log)
        net.proxy = .http(URL(string: "http://127.0.0.1:\(try closedPort())")!, username: "proxy-ada", password: "proxy-Passw0rd")
        let error = await networkError { try await net.perform(TestRequest<Echo>(server.provider(), "/echo/proxy-Passw0rd")) }
        let texts = [log.text, error?.errorDescription ?? "", String(reflecting: error as Any)]
        for text in texts { #expect(!text.contains("proxy-Passw0rd") && text.contains("/echo/<redacted>"), "\(text)") }
    }

    @Test("Descriptions, copy-as-curl and URLs show user names (Basic, Digest, NTLM, a proxy's, a URL's) and hide the passwords")
    func descriptionsShowUserNames() async throws {
        #expect(String(describing: Authentication.digest(user: "ada", password: "s3cret-Passw0rd"))
                    == "Authentication.digest(user: ada, password: <redacted>)")
        #expect(String(describing: Authentication.ntlm(user: "CORP\\ada", password: "s3cret-Passw0rd"))
                    == "Authentication.ntlm(user: CORP\\ada, password: <redacted>)")
        let proxy = ProxyConfiguration.http(URL(string: "http://127.0.0.1:3128")!, username: "proxy-ada", password: "proxy-Passw0rd")
        #expect(String(describing: proxy) == ".http(http://127.0.0.1:3128, username: proxy-ada, password: <redacted>)")
        #expect(Redactor.default.redact(urlString: "https://ada:s3cret@example.com/x") == "https://ada:<redacted>@example.com/x")
        // User information without a password may be a token (as git hosts take one): hidden whole.
        #expect(Redactor.default.redact(urlString: "https://ghp_token123@example.com/x") == "https://<redacted>@example.com/x")

        let server = try await TestServer.shared()
        let provider = AuthProvider(port: server.port, authentication: .digest(user: "ada", password: "s3cret-Passw0rd"))
        let net = makeManager()
        net.proxy = proxy
        let command = try await net.curlCommand(for: TestRequest<Echo>(provider, "/echo"))
        #expect(command.contains("--digest -u 'ada:<redacted>'") && command.contains("--proxy-user 'proxy-ada:<redacted>'"), "\(command)")
        #expect(!command.contains("s3cret-Passw0rd") && !command.contains("proxy-Passw0rd"), "\(command)")
    }
}
