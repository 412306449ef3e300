import Foundation
import Testing
@testable import NetworkLayer

/// `/status/<code>?body=…`: a response with exactly this body (encoded as `encoding`) and content type.
func bodyEndpoint(status: Int = 200, _ body: String, contentType: String = "application/json",
                  encoding: String = "utf-8") -> String {
    let allowed = CharacterSet.alphanumerics
    func escaped(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed)! }
    return "/status/\(status)?body=\(escaped(body))&contentType=\(escaped(contentType))&encoding=\(encoding)"
}

struct Item: Codable, Sendable, Equatable {
    let id: Int
    let createdAt: Date
}

struct ShopError: ServerErrorBody {
    let code: Int
    let message: String
    var serverMessage: String? { message }
}

/// A provider with snake_case keys, ISO 8601 dates, an error body type and configurable statuses.
struct ShopProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var acceptableStatusCodes: Range<Int> = 200..<300
    var jsonDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
    var errorBodyType: (any ServerErrorBody.Type)? { ShopError.self }
}

@Suite struct ResponseDecodingTests {
    @Test func dataResponseIsTheRawBody() async throws {
        try await withTestServer { server in
            let data = try await makeManager().perform(TestRequest<Data>(server.provider(), "/bytes/1000"))
            #expect(data == Data((0..<1000).map { UInt8($0 % 256) }))
        }
    }

    @Test(arguments: [("text/plain; charset=utf-8", "utf-8"), ("text/plain; charset=ISO-8859-1", "latin-1"),
                      ("text/plain; charset=\"utf-16\"", "utf-16"), ("text/plain", "utf-8")])
    func stringResponseIsDecodedPerCharset(contentType: String, encoding: String) async throws {
        try await withTestServer { server in
            let text = try await makeManager().perform(TestRequest<String>(server.provider(),
                bodyEndpoint("Café – déjà vu".replacingOccurrences(of: "–", with: encoding == "latin-1" ? "-" : "–"),
                             contentType: contentType, encoding: encoding)))
            #expect(text == (encoding == "latin-1" ? "Café - déjà vu" : "Café – déjà vu"))
        }
    }

    @Test func invalidTextIsASerializationError() async throws {
        try await withTestServer { server in
            let error = await networkError {
                try await makeManager().perform(TestRequest<String>(server.provider(),
                    bodyEndpoint("Café", contentType: "text/plain; charset=utf-8", encoding: "latin-1")))
            }
            guard case .serialization = error else { Issue.record("got \(String(describing: error))"); return }
        }
    }

    @Test func emptyResponseAcceptsNoContent() async throws {
        try await withTestServer { server in
            let empty = try await makeManager().perform(TestRequest<EmptyResponse>(server.provider(), "/status/204", method: .delete))
            #expect(empty == EmptyResponse())
            // A JSON type cannot be decoded from nothing.
            let error = await networkError { try await makeManager().perform(TestRequest<User>(server.provider(), "/status/204")) }
            guard case .serialization = error else { Issue.record("got \(String(describing: error))"); return }
        }
    }

    @Test func keyPathDecodingReachesIntoWrappers() async throws {
        try await withTestServer { server in
            let body = #"{"data": {"items": [{"id": 1, "created_at": "2024-01-02T03:04:05Z"}], "total": 1}, "meta": {}}"#
            let request = TestRequest<[Item]>(ShopProvider(port: server.port), bodyEndpoint(body))
            request.keyPath = "data.items"
            let items = try await makeManager().perform(request)
            #expect(items == [Item(id: 1, createdAt: Date(timeIntervalSince1970: 1_704_164_645))])

            let missing = TestRequest<[Item]>(ShopProvider(port: server.port), bodyEndpoint(body))
            missing.keyPath = "data.things"
            let error = await networkError { try await makeManager().perform(missing) }
            guard case .serialization(let context) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(context.reason?.contains("data.things") == true, "\(context.reason ?? "")")
        }
    }

    @Test func requestDecoderOverridesTheProviders() async throws {
        try await withTestServer { server in
            let request = TestRequest<Item>(ShopProvider(port: server.port), bodyEndpoint(#"{"id": 2, "createdAt": 0}"#))
            request.jsonDecoder = JSONDecoder()  // camelCase keys, dates as seconds since 2001
            let item = try await makeManager().perform(request)
            #expect(item == Item(id: 2, createdAt: Date(timeIntervalSinceReferenceDate: 0)))
        }
    }

    @Test func valueComesWithItsResponseWhenAsked() async throws {
        try await withTestServer { server in
            let (value, response) = try await makeManager().performWithResponse(TestRequest<HeadersEcho>(server.provider(), "/headers"))
            #expect(!value.headers.isEmpty)
            #expect(response.statusCode == 200)
            #expect(response.value(forHeader: "x-test-header") == "value1")
            #expect(response.value(forHeader: "SET-COOKIE")?.contains("theme=dark") == true)
            #expect(response.url.path == "/headers")
        }
    }

    @Test func acceptableStatusesArePerProviderAndPerRequest() async throws {
        try await withTestServer { server in
            // The provider accepts 404 as success: the body decodes.
            var lenient = ShopProvider(port: server.port)
            lenient.acceptableStatusCodes = 200..<500
            let status = try await makeManager().perform(TestRequest<[String: Int]>(lenient, "/status/404"))
            #expect(status == ["status": 404])
            // A request narrows it again.
            let strict = TestRequest<[String: Int]>(lenient, "/status/201")
            strict.acceptableStatusCodes = 200..<201
            let error = await networkError { try await makeManager().perform(strict) }
            guard case .generic(let code) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(code == 201)
        }
    }

    @Test func typedErrorBodiesAreDecodedFromFailingResponses() async throws {
        try await withTestServer { server in
            let provider = ShopProvider(port: server.port)
            let body = #"{"code": 42, "message": "Out of stock"}"#
            let error = await networkError { try await makeManager().perform(TestRequest<Item>(provider, bodyEndpoint(status: 422, body))) }
            guard case .apiError(let context) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(context.statusCode == 422)
            #expect(error?.serverError(as: ShopError.self)?.code == 42)
            #expect(error?.errorDescription?.contains("Out of stock") == true)

            // Statuses with a case of their own keep it, and carry the body too.
            let unauthorized = await networkError {
                try await makeManager().perform(TestRequest<Item>(provider, bodyEndpoint(status: 401, #"{"code": 7, "message": "Token expired"}"#)))
            }
            guard case .unauthorizedAccess = unauthorized else { Issue.record("got \(String(describing: unauthorized))"); return }
            #expect(unauthorized?.serverError(as: ShopError.self)?.message == "Token expired")

            // A failing body that is not the error type: plain status mapping.
            let plain = await networkError { try await makeManager().perform(TestRequest<Item>(provider, bodyEndpoint(status: 500, "oops"))) }
            guard case .generic(500) = plain else { Issue.record("got \(String(describing: plain))"); return }
        }
    }

    @Test func decodingFailureNamesThePathAndStatusButNotTheBody() async throws {
        try await withTestServer { server in
            let body = #"{"id": "not-a-number-canary-secret", "created_at": "2024-01-02T03:04:05Z"}"#
            let error = await networkError { try await makeManager().perform(TestRequest<Item>(ShopProvider(port: server.port), bodyEndpoint(body))) }
            guard case .serialization(let context) = error else { Issue.record("got \(String(describing: error))"); return }
            let description = error?.errorDescription ?? ""
            #expect(description.contains("id"))
            #expect(description.contains("status 200"))
            #expect(context.reason?.contains("canary") == false, "the reason must not quote the body")
            #expect(context.underlyingError is DecodingError)

            let nested = await networkError {
                try await makeManager().perform(TestRequest<[Item]>(ShopProvider(port: server.port),
                    bodyEndpoint(#"[{"id": 1, "created_at": "2024-01-02T03:04:05Z"}, {"id": 2}]"#)))
            }
            #expect(nested?.errorDescription?.contains("\"created_at\"") == true || nested?.errorDescription?.contains("createdAt") == true)
            #expect(nested?.errorDescription?.contains("[1]") == true, "\(nested?.errorDescription ?? "")")
        }
    }
}
