import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A body that is Base64 text, decoded by a request's parser (its `Decodable` conformance is
/// never used: the parser replaces JSON decoding).
struct Base64Text: Decodable, Sendable, Equatable {
    struct NotBase64: Error {}
    let text: String

    init(_ body: Data) throws {
        guard let data = Data(base64Encoded: body), let text = String(data: data, encoding: .utf8) else { throw NotBase64() }
        self.text = text
    }
}

@Suite("Parsers per request", .sharing)
struct ParserTests {
    @Test("A Base64 parser turns a text body into the value")
    func base64() async throws {
        let server = try await TestServer.shared()
        let request = TestRequest<Base64Text>(server.provider(), "/base64?text=h%C3%A9llo%20world")
        request.parser = { response in try Base64Text(response.body) }
        let value1 = try await makeManager().perform(request).text
        #expect(value1 == "héllo world")
    }

    @Test("The parser's own error reaches the caller as .serialization with it as underlyingError, keeping the response")
    func parserError() async throws {
        let server = try await TestServer.shared()
        let request = TestRequest<Base64Text>(server.provider(), "/status/200?body=not*base64&contentType=text/plain")
        request.parser = { response in try Base64Text(response.body) }
        let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(request) }
        #expect(outcome.error?.caseName == "serialization")
        #expect(outcome.error?.underlyingError is Base64Text.NotBase64)
        #expect(outcome.error?.context?.response?.statusCode == 200)
        #expect(outcome.error?.context?.reason?.contains("the request's parser") == true)
    }

    @Test("Validation runs first: a failing status never reaches the parser; the request's validator runs before it too")
    func validationFirst() async throws {
        let server = try await TestServer.shared()
        let parsed = Counter()
        let failing = TestRequest<Base64Text>(server.provider(), "/status/500")
        failing.parser = { response in parsed.increment(); return try Base64Text(response.body) }
        let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(failing) }
        #expect(outcome.error?.statusCode == 500)
        #expect(parsed.value == 0)

        struct Refused: Error {}
        let refused = TestRequest<Base64Text>(server.provider(), "/base64?text=x")
        refused.validator = { _ in throw Refused() }
        refused.parser = { response in parsed.increment(); return try Base64Text(response.body) }
        let second = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(refused) }
        #expect(second.error?.underlyingError is Refused)
        #expect(parsed.value == 0)
    }

    @Test("A parser works for mocked responses too")
    func mocked() async throws {
        let net = makeManager()
        net.areMocksEnabled = true
        net.mocks.register(.get, "/secret-text", .data(Data("c2VjcmV0".utf8)))
        let request = TestRequest<Base64Text>(TestProvider(host: "api.example.com", httpScheme: .https), "/secret-text")
        request.parser = { response in try Base64Text(response.body) }
        let value2 = try await net.perform(request).text
        #expect(value2 == "secret")
    }
}
