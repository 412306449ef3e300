import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Copy-as-curl must not be a way around the redirect rules: replayed with real values,
/// `curl --location` sends custom headers (API keys included) to whatever host a redirect names.
/// So a command that carries a secret header does not follow redirects, and says why in a
/// trailing comment; one without secret headers follows them as the library does. A stream's
/// command asks for what the library asks for (no compression) and bounds what it bounds (silence).
@Suite("Copy-as-curl: redirects, streams and time limits", .sharing)
struct CopyAsCurlTests {
    static let key = "nlCurlKey^6f2"

    @Test("A command with a secret header has no --location and says why, redacted or not", arguments: [true, false])
    func noLocationWithASecretHeader(_ redacting: Bool) async throws {
        let server = try await TestServer.shared()
        let provider = server.secretProvider(authentication: .apiKey(Self.key, header: "Ocp-Apim-Subscription-Key"))
        let command = try await makeManager().curlCommand(for: TestRequest<Echo>(provider, "/echo"), redactingSecrets: redacting)
        #expect(!command.prefix { $0 != "#" }.contains("--location"))
        #expect(command.hasSuffix(CurlCommand.noLocationComment), "\(command)")
        #expect(command.contains(Self.key) == !redacting)
    }

    @Test("A command without a secret header follows redirects, even with a secret query item")
    func locationWithoutSecretHeaders() async throws {
        let server = try await TestServer.shared()
        let provider = server.secretProvider(authentication: .apiKey(Self.key, queryItem: "subscription"))
        let command = try await makeManager().curlCommand(for: TestRequest<Echo>(provider, "/redirect/1"), redactingSecrets: false)
        #expect(command.contains(" --location "))
        #expect(!command.contains("#"))
        let (status, output) = try await runShell(curlCommand(command, inserting: "--silent --show-error"))
        #expect(status == 0)
        #expect(try JSONDecoder().decode(Echo.self, from: output).path == "/echo")
    }

    @Test("Replayed with real values, a command with a secret header sends nothing to the origin a redirect names")
    func replayDoesNotFollowToAnotherOrigin() async throws {
        let origin = try await TestServer.shared()
        try await withTestServer(record: true) { other in
            let provider = origin.secretProvider(authentication: .apiKey(Self.key, header: "Ocp-Apim-Subscription-Key"))
            let request = TestRequest<Echo>(provider, "/redirect-to?url=" + ParameterValue.percentEncode(other.baseURL + "/echo"))
            let command = try await makeManager().curlCommand(for: request, redactingSecrets: false)
            let (status, output) = try await runShell(curlCommand(command, inserting: "--silent --show-error -o /dev/null -w '%{http_code}'"))
            #expect(status == 0)
            #expect(String(decoding: output, as: UTF8.self) == "302", "curl stopped at the redirect")
            #expect(other.recordedBytes().isEmpty, "the other origin received a request")
        }
    }

    @Test("A stream's command asks for the body as sent, prints it as it arrives, and bounds silence, not the whole transfer")
    func streamCommand() async throws {
        let server = try await TestServer.shared()
        let command = try await makeManager().curlCommand(for: TestRequest<ByteStream>(server.provider(), "/echo", timeout: 7.5),
                                                          redactingSecrets: false)
        #expect(command.contains(" --no-buffer "), "\(command)")
        #expect(command.contains(" --speed-limit 1 --speed-time 8"), "\(command)")
        #expect(!command.contains("--compressed") && !command.contains("--max-time"), "\(command)")
        let (status, output) = try await runShell(curlCommand(command, inserting: "--silent --show-error"))
        #expect(status == 0)
        #expect(try JSONDecoder().decode(Echo.self, from: output).header("Accept-Encoding") == nil)
    }

    @Test("A whole-body command asks for a compressed body and bounds the whole transfer; no bound beyond the library's ceiling")
    func wholeBodyCommand() async throws {
        let server = try await TestServer.shared()
        let command = try await makeManager().curlCommand(for: TestRequest<Echo>(server.provider(), "/echo", timeout: 7.5),
                                                          redactingSecrets: false)
        #expect(command.contains(" --compressed ") && command.contains(" --max-time 7.5"), "\(command)")
        #expect(!command.contains("--no-buffer") && !command.contains("--speed-time"), "\(command)")
        let (status, output) = try await runShell(curlCommand(command, inserting: "--silent --show-error"))
        #expect(status == 0)
        #expect(try JSONDecoder().decode(Echo.self, from: output).header("Accept-Encoding") != nil)
        let unbounded = try await makeManager().curlCommand(for: TestRequest<Echo>(server.provider(), "/echo", timeout: 1e12))
        #expect(!unbounded.contains("--max-time"), "\(unbounded)")
    }
}
