import Foundation
import Testing
@testable import NetworkLayer

/// What a provider's `parseAndValidate` receives, and how an override reuses the default steps
/// (`validateStatus(acceptable:)` and `decode(_:using:)`).
@Suite("HTTPResponse and custom validation")
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

    /// A backend that answers 404 for "no results" and wants it treated as an empty list:
    /// it widens the acceptable statuses and reuses the default decoding.
    struct LenientProvider: ServiceProvider {
        let port: Int?
        var host: String { "127.0.0.1" }
        var httpScheme: HTTPScheme { .http }

        func parseAndValidate<Response: Decodable>(_ response: HTTPResponse, as type: Response.Type) throws -> Response {
            try response.validateStatus(acceptable: 200..<405)
            return try response.decode(type)
        }
    }

    @Test("A provider's parseAndValidate can reuse validateStatus(acceptable:) and decode(_:)")
    func overrideReusesTheDefaultSteps() async throws {
        let server = try await TestServer.shared()
        let provider = LenientProvider(port: server.port)
        let body = try await Net.perform(TestRequest<StatusBody>(provider, "/status/404"))
        #expect(body.status == 404)
        let error = await networkError { try await Net.perform(TestRequest<StatusBody>(provider, "/status/500")) }
        guard case .generic(let code)? = error else {
            Issue.record("expected .generic(code: 500), got \(String(describing: error))")
            return
        }
        #expect(code == 500)
    }

    /// A backend that reports failures inside a 200 body.
    struct EnvelopeProvider: ServiceProvider {
        struct Envelope: Decodable { let status: Int }
        let port: Int?
        var host: String { "127.0.0.1" }
        var httpScheme: HTTPScheme { .http }

        func parseAndValidate<Response: Decodable>(_ response: HTTPResponse, as type: Response.Type) throws -> Response {
            let envelope = try response.decode(Envelope.self)
            if envelope.status == 299 {
                throw NetworkError.customUser(description: "The backend said no.", recovery: "Ask nicely.", code: 299)
            }
            if envelope.status == 298 { throw CocoaError(.featureUnsupported) }
            return try response.decode(type)
        }
    }

    @Test("A NetworkError thrown by parseAndValidate reaches the caller unchanged")
    func providerErrorPassesThrough() async throws {
        let server = try await TestServer.shared()
        let error = await networkError {
            try await Net.perform(TestRequest<StatusBody>(EnvelopeProvider(port: server.port), "/status/299"))
        }
        guard case .customUser(let description, let recovery, let code)? = error else {
            Issue.record("expected .customUser, got \(String(describing: error))")
            return
        }
        #expect(description == "The backend said no.")
        #expect(recovery == "Ask nicely.")
        #expect(code == 299)
    }

    @Test("Any other error thrown by parseAndValidate arrives as a NetworkError that keeps its message")
    func providerForeignErrorWrapped() async throws {
        let server = try await TestServer.shared()
        let error = await networkError {
            try await Net.perform(TestRequest<StatusBody>(EnvelopeProvider(port: server.port), "/status/298"))
        }
        let description = try #require(error?.errorDescription)
        #expect(description.contains(CocoaError(.featureUnsupported).localizedDescription), "\(description)")
        #expect(error?.recoverySuggestion?.isEmpty == false)
    }
}
