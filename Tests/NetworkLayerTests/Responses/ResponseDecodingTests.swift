import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The body decoded as the request's response type: `Data`, `String` in its charset,
/// `EmptyResponse`, JSON with the provider's or the request's decoder, at a key path, and the
/// typed error body of a failing response.
@Suite("Decoding the response body", .sharing)
struct ResponseDecodingTests {
    @Test("A Data response is the raw body")
    func dataResponseIsTheRawBody() async throws {
        try await withTestServer { server in
            let data = try await makeManager().perform(TestRequest<Data>(server.provider(), "/bytes/1000"))
            #expect(data == Data((0..<1000).map { UInt8($0 % 256) }))
        }
    }

    @Test("A String response is decoded with the charset its Content-Type names, UTF-8 without one",
          arguments: [("text/plain; charset=utf-8", "utf-8"), ("text/plain; charset=ISO-8859-1", "latin-1"),
                      ("text/plain; charset=\"utf-16\"", "utf-16"), ("text/plain", "utf-8")])
    func stringResponseIsDecodedPerCharset(contentType: String, encoding: String) async throws {
        try await withTestServer { server in
            let text = try await makeManager().perform(TestRequest<String>(server.provider(),
                bodyEndpoint("Café – déjà vu".replacingOccurrences(of: "–", with: encoding == "latin-1" ? "-" : "–"),
                             contentType: contentType, encoding: encoding)))
            #expect(text == (encoding == "latin-1" ? "Café - déjà vu" : "Café – déjà vu"))
        }
    }

    @Test("Text invalid in its charset is .serialization")
    func invalidTextIsASerializationError() async throws {
        try await withTestServer { server in
            let error = await networkError {
                try await makeManager().perform(TestRequest<String>(server.provider(),
                    bodyEndpoint("Café", contentType: "text/plain; charset=utf-8", encoding: "latin-1")))
            }
            guard case .serialization = error else { Issue.record("got \(String(describing: error))"); return }
        }
    }

    @Test("EmptyResponse accepts 204 No Content; a JSON type from no body is .serialization")
    func emptyResponseAcceptsNoContent() async throws {
        try await withTestServer { server in
            let empty = try await makeManager().perform(TestRequest<EmptyResponse>(server.provider(), "/status/204", method: .delete))
            #expect(empty == EmptyResponse())
            // A JSON type cannot be decoded from nothing.
            let error = await networkError { try await makeManager().perform(TestRequest<User>(server.provider(), "/status/204")) }
            guard case .serialization = error else { Issue.record("got \(String(describing: error))"); return }
        }
    }

    @Test("keyPath decodes inside wrapper objects, and a missing path is named in the error")
    func keyPathDecodingReachesIntoWrappers() async throws {
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

    @Test("The request's jsonDecoder overrides the provider's")
    func requestDecoderOverridesTheProviders() async throws {
        try await withTestServer { server in
            let request = TestRequest<Item>(ShopProvider(port: server.port), bodyEndpoint(#"{"id": 2, "createdAt": 0}"#))
            request.jsonDecoder = JSONDecoder()  // camelCase keys, dates as seconds since 2001
            let item = try await makeManager().perform(request)
            #expect(item == Item(id: 2, createdAt: Date(timeIntervalSinceReferenceDate: 0)))
        }
    }

    @Test("A failing response's body is decoded as the provider's errorBodyType, whatever the status case")
    func typedErrorBodiesAreDecodedFromFailingResponses() async throws {
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

            // A failing body that is not the error type: the status and the response, no decoded body.
            let plain = await networkError { try await makeManager().perform(TestRequest<Item>(provider, bodyEndpoint(status: 500, "oops"))) }
            guard case .apiError(let plainContext) = plain else { Issue.record("got \(String(describing: plain))"); return }
            #expect(plainContext.statusCode == 500)
            #expect(plainContext.serverError == nil)
            #expect(plainContext.response?.body == Data("oops".utf8))
        }
    }

    @Test("A decoding failure names the coding path and the status, never the body")
    func decodingFailureNamesThePathAndStatusButNotTheBody() async throws {
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
