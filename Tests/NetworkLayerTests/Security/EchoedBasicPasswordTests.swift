import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A Basic password is a secret as a fact, wherever a server puts it back (issue 54): the URL,
/// a body, a header, a redirect's `Location`, an error. Its header carries it only in base64,
/// so the redactor knows it from the credentials the request was given, not from any header.
@Suite("A Basic password echoed by a server", .sharing)
struct EchoedBasicPasswordTests {
    static let user = "alice-user"
    static let password = "Pa55word-Very-Secret"
    static var basic: Authentication { .basic(username: user, password: password) }

    /// The error body of `/echo-credential?status=`: the password as the server's message.
    struct EchoedMessage: ServerErrorBody {
        let p: String
        var serverMessage: String? { "wrong password \(p)" }
    }

    @Test("Echoed in the URL, a body, headers, a same-origin redirect and an error, the password reaches no log, entry, HAR, error or recorded mock")
    func echoedPasswordIsScrubbedEverywhere() async throws {
        let sinks = try SecretSinks()
        let httpbin = try await HTTPBinServer.shared()
        let server = try await TestServer.shared()
        let provider = AuthProvider(port: server.port, authentication: Self.basic)

        // httpbin's /basic-auth/<user>/<password> takes the password in its path.
        let inPath = AuthProvider(port: httpbin.port, authentication: Self.basic)
        let authenticated = try await sinks.net.perform(TestRequest<JSONValue>(inPath, "/basic-auth/\(Self.user)/\(Self.password)"))
        #expect(authenticated["authenticated"] == true)
        // A server that decodes the credential and answers with it, in the body and in headers (recorded too).
        let echo = try await sinks.net.perform(MockedRequest<CredentialEcho>(provider, "/echo-credential", mock: "echo-credential"))
        #expect(echo.p == Self.password && echo.user == Self.user, "the server echoed the password: the check means something")
        // A same-origin redirect whose Location carries it: the hop's URL holds it, and /echo answers it in its query.
        let redirected = try await sinks.net.perform(TestRequest<Echo>(provider, "/echo-credential?redirect=/echo"))
        #expect(redirected.args["p"] == [Self.password])
        // The server's error message quotes it.
        let failing = TestRequest<JSONValue>(provider, "/echo-credential?status=400")
        failing.errorBodyType = EchoedMessage.self
        if let error = await networkError({ try await sinks.net.perform(failing) }) { sinks.findings.add(error) }
        #expect(sinks.findings.errors == 1)

        #expect(try sinks.places().contains { $0.place.hasSuffix("echo-credential.json") }, "record mode wrote the echo's body")
        try sinks.expectNowhere(Self.password)
        try sinks.expectNowhere("\(Self.user):\(Self.password)")
        // What is not secret stays readable.
        let log = sinks.log.text
        #expect(log.contains("/basic-auth/\(Self.user)/<redacted>"), "\(log)")
        #expect(log.contains("\"user\" : \"\(Self.user)\""), "\(log)")
        #expect(log.contains("\"authenticated\" : true"), "\(log)")
    }

    @Test("A Location of another origin that carries the password is not followed: the other server never receives it")
    func passwordInACrossOriginLocationIsRefused() async throws {
        try await withTestServer(record: true) { elsewhere in
            let sinks = try SecretSinks()
            let server = try await TestServer.shared()
            let provider = AuthProvider(port: server.port, authentication: Self.basic)
            let target = ParameterValue.percentEncode("http://127.0.0.1:\(elsewhere.port)/echo")
            let error = await networkError { try await sinks.net.perform(TestRequest<Echo>(provider, "/echo-credential?redirect=\(target)")) }
            #expect(error?.caseName == "transport" && error?.context?.reason?.contains("secret of this request") == true,
                    "\(String(describing: error))")
            if let error { sinks.findings.add(error) }
            #expect(!Array(elsewhere.recordedBytes()).containsBytes(Array(Self.password.utf8)))
            try sinks.expectNowhere(Self.password)
        }
    }

    @Test("The description and copy-as-curl show the user name, never the password")
    func descriptionsShowTheUserOnly() async throws {
        #expect(String(describing: Self.basic) == "Authentication.basic(username: \(Self.user), password: <redacted>)")
        // Without a password the user name is the credential (an API key as Stripe takes it).
        #expect(String(describing: Authentication.basic(username: "sk_test_key123", password: "")) == "Authentication.basic(username: <redacted>, password: <redacted>)")
        let server = try await TestServer.shared()
        let command = try await makeManager().curlCommand(for: TestRequest<Echo>(AuthProvider(port: server.port, authentication: Self.basic),
                                                                                  "/echo/\(Self.password)"))
        #expect(!command.contains(Self.password) && command.contains("/echo/<redacted>"), "\(command)")
    }
}
