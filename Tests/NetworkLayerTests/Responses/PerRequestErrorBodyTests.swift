import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `BaseRequest.errorBodyType`: the error body a failing response is decoded as, chosen per request.
@Suite("Error body type per request", .sharing)
struct PerRequestErrorBodyTests {
    @Test("A request declares the error body its endpoint sends, on a provider without one")
    func requestDeclaresIt() async throws {
        let server = try await TestServer.shared()
        let body = #"{"code": 42, "message": "Out of stock"}"#
        let plain = await networkError { try await Net.perform(TestRequest<Item>(server.provider(), bodyEndpoint(status: 422, body))) }
        // Without it the status still fails, with the response but no decoded error body.
        guard case .apiError(let plainContext)? = plain else { Issue.record("got \(String(describing: plain))"); return }
        #expect(plainContext.statusCode == 422)
        #expect(plainContext.serverError == nil)
        #expect(plain?.serverError(as: ShopError.self) == nil)

        let request = TestRequest<Item>(server.provider(), bodyEndpoint(status: 422, body))
        request.errorBodyType = ShopError.self
        let error = await networkError { try await Net.perform(request) }
        guard case .apiError? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(error?.serverError(as: ShopError.self)?.code == 42)
        #expect(error?.errorDescription?.contains("Out of stock") == true)
        #expect(error?.context?.response?.statusCode == 422)
    }

    @Test("A request's error body type replaces the provider's")
    func requestOverridesTheProvider() async throws {
        let server = try await TestServer.shared()
        let body = #"{"error": {"kind": "quota_exceeded"}}"#
        let request = TestRequest<Item>(ShopProvider(port: server.port), bodyEndpoint(status: 429, body))
        request.errorBodyType = NestedShopError.self
        let error = await networkError { try await Net.perform(request) }
        guard case .apiError? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(error?.serverError(as: NestedShopError.self)?.error.kind == "quota_exceeded")
        #expect(error?.serverError(as: ShopError.self) == nil)
        #expect(error?.errorDescription?.contains("quota_exceeded") == true)

        // Without it the provider's type applies, and this body is not that type.
        let plain = await networkError { try await Net.perform(TestRequest<Item>(ShopProvider(port: server.port), bodyEndpoint(status: 429, body))) }
        guard case .apiError(let plainContext)? = plain else { Issue.record("got \(String(describing: plain))"); return }
        #expect(plainContext.statusCode == 429)
        #expect(plain?.serverError(as: NestedShopError.self) == nil)
        #expect(plain?.serverError(as: ShopError.self) == nil)
        #expect(plainContext.response?.body == Data(body.utf8))
    }

    @Test("Statuses with a case of their own keep it and carry the request's error body")
    func mappedStatusesCarryIt() async throws {
        let server = try await TestServer.shared()
        let request = TestRequest<Item>(server.provider(), bodyEndpoint(status: 401, #"{"error": {"kind": "token_expired"}}"#))
        request.errorBodyType = NestedShopError.self
        let error = await networkError { try await Net.perform(request) }
        guard case .unauthorizedAccess? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(error?.serverError(as: NestedShopError.self)?.error.kind == "token_expired")
    }
}
