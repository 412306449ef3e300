import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The provider's `createHTTPHeaders()`, then the request's `additionalHeaders`, which override
/// by case-insensitive name. Headers that could split or truncate the header block are refused
/// before any connection.
@Suite("Headers", .sharing)
struct HeaderTests {
    /// The values the server received under `name`, ignoring case, in order.
    private func received(_ name: String, in echo: Echo) -> [String] {
        echo.headerList.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }

    @Test("Every header the provider creates is sent")
    func providerHeadersSent() async throws {
        let server = try await TestServer.shared()
        let provider = server.provider(headers: ["Accept": "application/json", "X-Api-Key": "k-123",
                                                 "X-Client": "NetworkLayer Tests/1.0 (loopback)"])
        let echo = try await Net.perform(TestRequest<Echo>(provider, "/echo"))
        #expect(received("Accept", in: echo) == ["application/json"])
        #expect(received("X-Api-Key", in: echo) == ["k-123"])
        #expect(received("X-Client", in: echo) == ["NetworkLayer Tests/1.0 (loopback)"])
    }

    @Test("An asynchronous createHTTPHeaders() is awaited and its headers sent")
    func asyncProviderHeaders() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(AsyncTokenProvider(port: server.port), "/echo"))
        #expect(received("Authorization", in: echo) == ["Bearer fresh-token"])
    }

    @Test("additionalHeaders are sent alongside the provider's")
    func additionalHeadersAdded() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(headers: ["X-Provider": "p"]), "/echo",
                                                           headers: ["X-Request": "r"]))
        #expect(received("X-Provider", in: echo) == ["p"])
        #expect(received("X-Request", in: echo) == ["r"])
    }

    @Test("A request header replaces the provider's header of the same name, whatever its case; only one copy is sent",
          arguments: ["X-Token", "x-token", "X-TOKEN", "x-ToKeN"])
    func additionalHeadersOverrideIgnoringCase(_ requestName: String) async throws {
        let server = try await TestServer.shared()
        let provider = server.provider(headers: ["X-Token": "from-provider", "Accept": "application/json"])
        let echo = try await Net.perform(TestRequest<Echo>(provider, "/echo",
                                                           headers: [requestName: "from-request",
                                                                     "ACCEPT": "text/plain"]))
        #expect(received("X-Token", in: echo) == ["from-request"])
        #expect(received("Accept", in: echo) == ["text/plain"])
    }

    @Test("An empty header value is sent as an empty header")
    func emptyValueSent() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(headers: ["X-From-Provider": ""]), "/echo",
                                                           headers: ["X-Empty": ""]))
        #expect(received("X-Empty", in: echo) == [""])
        #expect(received("X-From-Provider", in: echo) == [""])
    }

    @Test("A tab inside a value is allowed and sent")
    func tabAllowedInValue() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", headers: ["X-Tab": "a\tb"]))
        #expect(received("X-Tab", in: echo) == ["a\tb"])
    }

    struct BadHeader: Sendable, CustomTestStringConvertible {
        let name: String
        let value: String
        var testDescription: String { "\(name.debugDescription): \(value.debugDescription)" }
    }

    static let badHeaders: [BadHeader] = [
        BadHeader(name: "X-Injected", value: "a\r\nX-Evil: 1"),
        BadHeader(name: "X-Injected", value: "a\nb"),
        BadHeader(name: "X-Injected", value: "a\rb"),
        BadHeader(name: "X-Injected", value: "a\u{0}b"),
        BadHeader(name: "X-Injected", value: "escape \u{1B}[31m"),
        BadHeader(name: "X-Injected", value: "delete \u{7F}"),
        BadHeader(name: "X-Injected", value: "trailing newline\n"),
        BadHeader(name: "X-Evil\r\nX-Other", value: "v"),
        BadHeader(name: "X-Nul\u{0}", value: "v"),
        BadHeader(name: "X Space", value: "v"),
        BadHeader(name: "X-Colon:", value: "v"),
        BadHeader(name: "", value: "v"),
        BadHeader(name: "X-Unicodé", value: "v"),
    ]

    // These point at a port where nothing listens: had the library tried to connect before
    // checking, the error would be .reachability.
    @Test("A bad header in additionalHeaders is refused with .invalidRequest before any connection",
          arguments: badHeaders)
    func badRequestHeaderRefused(_ header: BadHeader) async throws {
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        let error = await networkError {
            try await Net.perform(TestRequest<Echo>(provider, "/echo", headers: [header.name: header.value]))
        }
        #expect(error?.caseName == "invalidRequest", "\(String(describing: error))")
        #expect(error?.context?.reason?.localizedCaseInsensitiveContains("header") == true)
        #expect(error?.recoverySuggestion?.isEmpty == false)
    }

    @Test("A bad header from the provider is refused with .invalidRequest before any connection", arguments: badHeaders)
    func badProviderHeaderRefused(_ header: BadHeader) async throws {
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort(),
                                    headers: [header.name: header.value])
        let error = await networkError { try await Net.perform(TestRequest<Echo>(provider, "/echo")) }
        #expect(error?.caseName == "invalidRequest", "\(String(describing: error))")
        #expect(error?.context?.reason?.localizedCaseInsensitiveContains("header") == true)
    }

    @Test("A header with CR LF never reaches a listening server")
    func headerInjectionNeverSent() async throws {
        try await withTestServer { server in
            let fromRequest = await networkError {
                try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", headers: ["X-Injected": "a\r\nX-Evil: 1"]))
            }
            let fromProvider = await networkError {
                try await Net.perform(TestRequest<Echo>(server.provider(headers: ["X-Injected": "a\r\nX-Evil: 1"]), "/echo"))
            }
            #expect(fromRequest?.caseName == "invalidRequest")
            #expect(fromProvider?.caseName == "invalidRequest")
            let requestsReceived = try await server.receivedRequestCount()
            #expect(requestsReceived == 0)
        }
    }

    @Test("The error for a bad header says which header, without its raw control characters")
    func badHeaderErrorNamesTheHeader() async throws {
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        let error = await networkError {
            try await Net.perform(TestRequest<Echo>(provider, "/echo", headers: ["X-Injected": "secret\r\nX-Evil: 1"]))
        }
        let description = try #require(error?.errorDescription)
        #expect(description.contains("X-Injected"))
        #expect(!description.contains("\r"))
        #expect(!description.contains("\n"))
    }

    @Test("Accept-Encoding is sent once, offering every encoding libcurl decodes; a request's own replaces it; a stream asks for none")
    func acceptEncodingOnceAndReplaceable() async throws {
        let server = try await TestServer.shared()
        let plain = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo"))
        #expect(received("Accept-Encoding", in: plain) == [TransferPlan.acceptedEncodings])
        for encoding in ["gzip", "deflate", "br", "zstd"] {
            #expect(TransferPlan.acceptedEncodings.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.contains(encoding))
        }
        let withHeaders = try await Net.perform(TestRequest<Echo>(server.provider(headers: ["X-Provider": "p"]), "/echo"))
        #expect(received("Accept-Encoding", in: withHeaders) == [TransferPlan.acceptedEncodings])
        let own = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", headers: ["accept-encoding": "identity"]))
        #expect(received("Accept-Encoding", in: own) == ["identity"])
        let stream = try await Net.perform(StreamRequest<ByteStream>(server.provider(), "/echo"))
        var body = Data()
        for try await chunk in stream { body.append(chunk) }
        let streamed = try JSONDecoder().decode(Echo.self, from: body)
        #expect(received("Accept-Encoding", in: streamed).isEmpty)
        #expect(received("User-Agent", in: streamed).count == 1)
    }
}
