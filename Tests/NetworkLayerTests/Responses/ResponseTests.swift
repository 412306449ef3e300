import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The ``HTTPResponse`` a provider's `parseAndValidate` and a caller of `performWithResponse`
/// receive: status, headers, body, URL. A provider's own validation is ``CustomValidationTests``;
/// decoding the body is ``ResponseDecodingTests``.
@Suite("The HTTPResponse", .sharing)
struct ResponseTests {
    @Test("The response carries the status, the headers (looked up ignoring case), the body and the URL")
    func responseParts() async throws {
        let server = try await TestServer.shared()
        let response = try await Net.perform(TestRequest<RawResponse>(server.rawProvider(), "/headers"))
        #expect(response.statusCode == 200)
        #expect(response.url.absoluteString == "http://127.0.0.1:\(server.port)/headers")
        let http = HTTPResponse(statusCode: response.statusCode, headers: response.headers, body: response.body,
                                url: response.url)
        #expect(http.value(forHeader: "x-test-header") == "value1")
        #expect(http.value(forHeader: "X-TEST-HEADER") == "value1")
        #expect(http.value(forHeader: "x-empty") == "")
        #expect(http.value(forHeader: "x-absent") == nil)
        // A header sent twice has its values joined.
        #expect(http.value(forHeader: "set-cookie") == "session=abc123; Path=/, theme=dark; Path=/")
        let json = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        #expect(json?["headers"] is [String: Any])
    }

    @Test("The body is kept byte for byte")
    func bodyBytes() async throws {
        let server = try await TestServer.shared()
        let response = try await Net.perform(TestRequest<RawResponse>(server.rawProvider(), "/bytes/1000"))
        #expect(response.body == Data((0..<1000).map { UInt8($0 % 256) }))
        #expect(response.contentType == "application/octet-stream")
    }

    @Test("performWithResponse returns the value with its HTTPResponse")
    func valueComesWithItsResponseWhenAsked() async throws {
        try await withTestServer { server in
            let (value, response) = try await makeManager().performWithResponse(TestRequest<HeadersEcho>(server.provider(), "/headers"))
            #expect(!value.headers.isEmpty)
            #expect(response.statusCode == 200)
            #expect(response.value(forHeader: "x-test-header") == "value1")
            #expect(response.value(forHeader: "SET-COOKIE")?.contains("theme=dark") == true)
            #expect(response.url.path == "/headers")
        }
    }
}
