import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The URL is `scheme://host[:port]` + `endpoint`. A host, port or endpoint that cannot form a
/// valid URL is `.invalidRequest` before anything is sent.
@Suite("URL validation", .sharing)
struct URLValidationTests {
    struct BadProvider: Sendable, CustomTestStringConvertible {
        let host: String
        let port: Int?
        var testDescription: String { "host \(host.debugDescription), port \(port.map(String.init) ?? "nil")" }
    }

    static let badProviders = [
        BadProvider(host: "bad host", port: nil),
        BadProvider(host: "http://example.com", port: nil),
        BadProvider(host: "https://127.0.0.1", port: nil),
        BadProvider(host: "", port: nil),
        BadProvider(host: "example.com/path", port: nil),
        BadProvider(host: "user@example.com", port: nil),
        BadProvider(host: "example.com:8080", port: nil),
        BadProvider(host: "exa\r\nmple.com", port: nil),
        BadProvider(host: "127.0.0.1", port: 0),
        BadProvider(host: "127.0.0.1", port: 70000),
        BadProvider(host: "127.0.0.1", port: -1),
    ]

    @Test("A host or port that cannot form a URL is .invalidRequest, not a network error", arguments: badProviders)
    func badHostOrPort(_ bad: BadProvider) async throws {
        let provider = TestProvider(host: bad.host, httpScheme: .http, port: bad.port)
        let error = await networkError { try await Net.perform(TestRequest<Echo>(provider, "/echo")) }
        #expect(error?.caseName == "invalidRequest", "\(String(describing: error))")
        #expect(error?.context?.reason?.isEmpty == false)
        #expect(error?.recoverySuggestion?.isEmpty == false)
    }

    @Test("The error for a host with a scheme says to put the scheme in httpScheme")
    func hostWithSchemeExplained() async throws {
        let provider = TestProvider(host: "http://example.com", httpScheme: .http, port: nil)
        let error = await networkError { try await Net.perform(TestRequest<Echo>(provider, "/echo")) }
        #expect(error?.errorDescription?.contains("httpScheme") == true, "\(String(describing: error?.errorDescription))")
    }

    // Pointed at a port where nothing listens: had the library tried to connect before
    // checking, the error would be .reachability.
    @Test("An endpoint with a control character is .invalidRequest before any connection",
          arguments: ["/echo\r\nX-Evil: 1", "/echo\n", "/echo\u{0}", "/echo\tx", "/ec\u{7F}ho", "/echo?q=\r\n"])
    func endpointWithControlCharacter(_ endpoint: String) async throws {
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        let error = await networkError { try await Net.perform(TestRequest<Echo>(provider, endpoint)) }
        #expect(error?.caseName == "invalidRequest", "\(String(describing: error))")
        #expect(error?.context?.reason?.contains("control character") == true)
    }

    @Test("An endpoint with CR LF never reaches a listening server")
    func endpointInjectionNeverSent() async throws {
        try await withTestServer { server in
            let error = await networkError {
                try await Net.perform(TestRequest<Echo>(server.provider(), "/echo HTTP/1.1\r\nX-Evil: 1\r\n\r\nGET /echo"))
            }
            #expect(error?.caseName == "invalidRequest", "\(String(describing: error))")
            let requestsReceived = try await server.receivedRequestCount()
            #expect(requestsReceived == 0)
        }
    }

    @Test("An endpoint without a leading slash gets one")
    func endpointWithoutSlash() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "echo/no-slash"))
        #expect(echo.path == "/echo/no-slash")
    }

    @Test("An empty endpoint asks for the server's root")
    func emptyEndpoint() async throws {
        try await withTestServer(record: true) { server in
            _ = await networkError { try await Net.perform(TestRequest<Echo>(server.provider(), "")) }
            let received = String(decoding: server.recordedBytes(), as: UTF8.self)
            #expect(received.hasPrefix("GET / HTTP/1.1\r\n"), "\(received.prefix(40))")
        }
    }

    @Test("Characters that cannot appear raw in a path are percent-encoded; existing escapes are kept",
          arguments: [
              ("/echo/a b", "/echo/a%20b"),
              ("/echo/Théâtre", "/echo/Th%C3%A9%C3%A2tre"),
              ("/echo/\"quoted\"", "/echo/%22quoted%22"),
              ("/echo/already%20encoded", "/echo/already%20encoded"),
              ("/echo/a;b=c,d", "/echo/a;b=c,d"),
          ])
    func endpointPathEncoding(_ endpoint: String, _ expectedPath: String) async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), endpoint))
        #expect(echo.path == expectedPath)
    }

    @Test("The provider's port is used, and a host name is resolved")
    func hostNameAndPort() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
        #expect(echo.header("Host") == "localhost:\(server.port)")
    }
}
