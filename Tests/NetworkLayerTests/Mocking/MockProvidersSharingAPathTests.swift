import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Two mocked providers that register the same method and path: the registration is one (the
/// host is not part of it), the later replaces the earlier and answers both; the base path, the
/// request's class or a closure reading the host tells them apart (MockModeAndTesting.md).
@Suite("Two mocked providers, one path", .sharing)
struct MockProvidersSharingAPathTests {
    struct Shop: ServiceProvider {
        var host: String { "shop.example" }
        var httpScheme: HTTPScheme { .https }
        var basePath: String { "/v1" }
    }

    struct Blog: ServiceProvider {
        var host: String { "blog.example" }
        var httpScheme: HTTPScheme { .https }
        var basePath: String { "/v1" }
    }

    struct Other: ServiceProvider {
        var host: String { "other.example" }
        var httpScheme: HTTPScheme { .https }
        var basePath: String { "/v2" }
    }

    final class ShopItems: BaseRequest<JSONValue> {
        init() { super.init(serviceProvider: Shop(), endpoint: "/items") }
    }

    private func mockedManager() -> NetworkManager {
        let net = makeManager()
        net.areMocksEnabled = true
        net.mockResponsesDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("no-mocks-\(UUID().uuidString)")
        return net
    }

    private func from(_ net: NetworkManager, _ provider: any ServiceProvider) async throws -> String? {
        try await net.perform(TestRequest<JSONValue>(provider, "/items"))["from"]?.stringValue
    }

    @Test("The later registration of a method and path answers both providers")
    func laterRegistrationAnswersBoth() async throws {
        let net = mockedManager()
        net.mocks.register(.get, "/items", .json(["from": "shop"]))
        net.mocks.register(.get, "/items", .json(["from": "blog"]))
        #expect(try await from(net, Shop()) == "blog")
        #expect(try await from(net, Blog()) == "blog")
    }

    @Test("The full path, with the base path, is tried before the endpoint's: providers with different base paths each get theirs")
    func basePathTellsThemApart() async throws {
        let net = mockedManager()
        net.mocks.register(.get, "/items", .json(["from": "any"]))
        net.mocks.register(.get, "/v2/items", .json(["from": "other"]))
        #expect(try await from(net, Other()) == "other")
        #expect(try await from(net, Shop()) == "any")
    }

    @Test("A closure reading the host, or a registration for the request's class, answers each provider its own")
    func hostOrClassTellsThemApart() async throws {
        let net = mockedManager()
        net.mocks.register(.get, "/items") { request in .json(["from": request.url.host == "shop.example" ? "shop" : "blog"]) }
        #expect(try await from(net, Shop()) == "shop")
        #expect(try await from(net, Blog()) == "blog")
        net.mocks.register(ShopItems.self) { _ in .json(["from": "shop's class"]) }
        #expect(try await net.perform(ShopItems())["from"]?.stringValue == "shop's class")
        #expect(try await from(net, Blog()) == "blog")
    }
}
