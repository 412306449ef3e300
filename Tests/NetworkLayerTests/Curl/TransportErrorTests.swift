import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Failures below HTTP: the host cannot be reached, the connection breaks, the answer is not
/// HTTP or not the expected JSON. Each keeps libcurl's error and says what happened; none
/// leaves the manager unable to run the next request.
@Suite("Transport errors", .sharing)
struct TransportErrorTests {
    @Test("A refused connection is .reachability, with curl's error kept")
    func connectionRefused() async throws {
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        let error = await networkError { try await Net.perform(TestRequest<Echo>(provider, "/echo")) }
        #expect(error?.caseName == "reachability", "\(String(describing: error))")
        #expect(error?.curlCode == 7)  // CURLE_COULDNT_CONNECT
        #expect(error?.errorDescription?.contains("GET http://127.0.0.1:") == true)
        #expect(error?.recoverySuggestion?.isEmpty == false)
    }

    @Test("A host name that does not resolve is .reachability")
    func unresolvableHost() async throws {
        let provider = TestProvider(host: "nonexistent.invalid", httpScheme: .http, port: nil)
        let error = await networkError { try await Net.perform(TestRequest<Echo>(provider, "/echo")) }
        #expect(error?.caseName == "reachability", "\(String(describing: error))")
        #expect(error?.curlCode == 6)  // CURLE_COULDNT_RESOLVE_HOST
        #expect(error?.context?.reason?.contains("resolve") == true)
        #expect(error?.errorDescription?.contains("nonexistent.invalid") == true)
    }

    struct BrokenEndpoint: Sendable, CustomTestStringConvertible {
        let path: String
        let curlCodes: Set<Int>
        let reason: String
        var testDescription: String { path }
    }

    static let brokenEndpoints = [
        // The server reads the request and closes without a byte of answer: CURLE_GOT_NOTHING.
        BrokenEndpoint(path: "/close", curlCodes: [52], reason: "without answering"),
        // The server resets the connection: CURLE_RECV_ERROR.
        BrokenEndpoint(path: "/reset", curlCodes: [56], reason: "reset"),
        // Content-Length 1000, 10 bytes, close: CURLE_PARTIAL_FILE.
        BrokenEndpoint(path: "/partial", curlCodes: [18], reason: "before the body was complete"),
        // "THIS IS NOT HTTP": libcurl refuses it as HTTP/0.9 (CURLE_UNSUPPORTED_PROTOCOL) or as a
        // weird reply (CURLE_WEIRD_SERVER_REPLY), depending on its version.
        BrokenEndpoint(path: "/garbage", curlCodes: [1, 8], reason: "not valid HTTP"),
    ]

    @Test("A broken connection is .transport saying what broke, with curl's error kept", arguments: brokenEndpoints)
    func brokenConnection(_ endpoint: BrokenEndpoint) async throws {
        // A server of its own: with a kept-alive connection to reuse, libcurl retries a request
        // that dies without an answer on other connections and reports the last failure instead.
        try await withTestServer { server in
            let error = await networkError { try await Net.perform(TestRequest<Echo>(server.provider(), endpoint.path)) }
            guard case .transport(let context)? = error else {
                Issue.record("expected .transport, got \(String(describing: error))")
                return
            }
            let curl = try #require(context.underlyingError as? CurlError)
            #expect(endpoint.curlCodes.contains(curl.code), "\(curl)")
            #expect(!curl.message.isEmpty)
            #expect(context.reason?.contains(endpoint.reason) == true, "\(String(describing: context.reason))")
            #expect(context.request == "GET http://127.0.0.1:\(server.port)\(endpoint.path)")
            #expect(error?.recoverySuggestion?.isEmpty == false)
        }
    }

    @Test("After a broken connection the next request succeeds", arguments: brokenEndpoints)
    func recoversAfterBrokenConnection(_ endpoint: BrokenEndpoint) async throws {
        let server = try await TestServer.shared()
        for round in 1...3 {
            let error = await networkError { try await Net.perform(TestRequest<Echo>(server.provider(), endpoint.path)) }
            #expect(error?.caseName == "transport")
            let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", params: ["round": round]))
            #expect(echo.args["round"] == ["\(round)"])
        }
    }

    @Test("A body that is not valid JSON is .serialization, without the body's text in the message")
    func malformedJSON() async throws {
        struct Fixed: Decodable, Sendable { let id: Int; let name: String }
        let server = try await TestServer.shared()
        let error = await networkError { try await Net.perform(TestRequest<Fixed>(server.provider(), "/malformed-json")) }
        guard case .serialization(let context)? = error else {
            Issue.record("expected .serialization, got \(String(describing: error))")
            return
        }
        #expect(context.underlyingError is DecodingError)
        #expect(context.statusCode == 200)
        let description = try #require(error?.errorDescription)
        #expect(description.contains("/malformed-json"), "\(description)")
        #expect(!description.contains(#"{"id""#), "\(description)")
        #expect(!description.contains(#""name": "#), "\(description)")
        #expect(error?.recoverySuggestion?.isEmpty == false)

        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo"))
        #expect(echo.path == "/echo")
    }

    @Test("A failed request leaves nothing behind: the same manager serves the next request right away")
    func recoversAfterEveryKindOfFailure() async throws {
        let server = try await TestServer.shared()
        let refused = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        _ = await networkError { try await Net.perform(TestRequest<Echo>(refused, "/echo")) }
        _ = await networkError { try await Net.perform(TestRequest<Echo>(server.provider(), "/status/500")) }
        _ = await networkError { try await Net.perform(TestRequest<Echo>(server.provider(), "/malformed-json")) }
        _ = await networkError { try await Net.perform(TestRequest<Echo>(server.provider(), "/delay/2", timeout: 0.2)) }
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", params: ["after": "failures"]))
        #expect(echo.args["after"] == ["failures"])
    }

    // SIGPIPE kills a process that writes to a connection its peer has closed, unless every
    // write says MSG_NOSIGNAL or the signal is ignored (CURLOPT_NOSIGNAL and libcurl's care).
    // If this test fails, it fails by killing the test process.
    @Test("A 5 MB upload to a server that resets the connection is an error, not a dead process")
    func resetDuringLargeUploadDoesNotKillTheProcess() async throws {
        let body = String(repeating: "x", count: 5 << 20)
        let server = try await TestServer.shared()
        let error = await networkError {
            try await Net.perform(TestRequest<Echo>(server.provider(), "/reset", method: .post, params: ["blob": body]))
        }
        #expect(error?.caseName == "transport", "\(String(describing: error))")
        // This one resets after reading only the first 64 KiB, while the client is still sending.
        let resetting = try await offCooperativePool { try ResettingServer() }
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: resetting.port)
        for _ in 1...3 {
            let error = await networkError {
                try await Net.perform(TestRequest<Echo>(provider, "/upload", method: .put, params: ["blob": body]))
            }
            #expect(error?.caseName == "transport", "\(String(describing: error))")
            #expect([55, 56].contains(error?.curlCode), "\(String(describing: error))")  // CURLE_SEND_ERROR, CURLE_RECV_ERROR
        }
        await offCooperativePool { resetting.stop() }
    }

    // The same over TLS, where the bytes go through OpenSSL's writes rather than libcurl's own
    // send(); a manager of its own trusts the test CA without touching the shared one.
    @Test("A 5 MB upload over TLS to a server that resets the connection is an error, not a dead process")
    func resetDuringLargeTLSUploadDoesNotKillTheProcess() async throws {
        let body = String(repeating: "x", count: 5 << 20)
        let manager = NetworkManager()
        manager.isVerbose = false
        manager.customCABundle = certificatesDirectory.appendingPathComponent("TestCABundle.pem")
        let resetting = try await offCooperativePool { try ResettingServer(tls: true) }
        let provider = TestProvider(host: "localhost", httpScheme: .https, port: resetting.port)
        for _ in 1...3 {
            let error = await networkError {
                try await manager.perform(TestRequest<Echo>(provider, "/upload", method: .post, params: ["blob": body]))
            }
            #expect(error?.caseName == "transport", "\(String(describing: error))")
            #expect([55, 56].contains(error?.curlCode), "\(String(describing: error))")  // CURLE_SEND_ERROR, CURLE_RECV_ERROR
        }
        await offCooperativePool { resetting.stop() }
    }
}
