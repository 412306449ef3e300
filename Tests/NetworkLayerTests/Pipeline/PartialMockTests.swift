import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

@Suite("Catch-all and partial mocks", .sharing)
struct PartialMockTests {
    static let api = TestProvider(host: "api.example.com", httpScheme: .https)

    @Test("The fallback answers what no registration and no file matched; it sees the request as it would go out")
    func fallbackAnswers() async throws {
        let net = makeManager(mocks: try MockDirectory().url)
        net.mocks.register(.get, "/users/7", .json(User(id: 7, name: "Ada")))
        net.mocks.registerFallback { request in
            request.url.path.hasPrefix("/users/") ? .json(User(id: 0, name: request.url.lastPathComponent)) : nil
        }
        let value1 = try await net.perform(TestRequest<User>(Self.api, "/users/7"))
        #expect(value1 == User(id: 7, name: "Ada"))
        let value2 = try await net.perform(TestRequest<User>(Self.api, "/users/grace"))
        #expect(value2 == User(id: 0, name: "grace"))
        #expect(net.mocks.requests.map { $0.url.path } == ["/users/7", "/users/grace"])
    }

    @Test("A fallback answering nil is .mockNotFound naming every place looked, the fallback included")
    func fallbackNil() async throws {
        let net = makeManager(mocks: try MockDirectory().url)
        net.mocks.registerFallback { _ in nil }
        let outcome = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<User>(Self.api, "/orders/1")) }
        guard case .mockNotFound(let places)? = outcome.error else {
            Issue.record("expected .mockNotFound, got \(outcome)")
            return
        }
        #expect(places.contains("GET/orders/1.json"))
        #expect(places.contains("TestRequest<User>"))
        #expect(places.contains("GET /orders/1"))
        #expect(places.contains("the fallback mock, which answered nil"))
    }

    @Test("A fallback runs the real validation: its 404 is .notFound")
    func fallbackValidated() async throws {
        let net = makeManager(mocks: try MockDirectory().url)
        net.mocks.registerFallback { _ in .status(404) }
        let outcome = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<User>(Self.api, "/anything")) }
        #expect(outcome.error?.caseName == "notFound")
    }

    @Test("A provider with areMocksEnabled = true is mocked while another stays live, in one manager")
    func mockedProviderBesideLiveOne() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        #expect(!net.areMocksEnabled)
        net.mocks.register(.get, "/users/7", .json(User(id: 7, name: "Ada")))
        let mocked = InterceptingProvider(host: "payments.invalid", port: 443, areMocksEnabled: true)
        let value3 = try await net.perform(TestRequest<User>(mocked, "/users/7"))
        #expect(value3 == User(id: 7, name: "Ada"))
        let echo = try await net.perform(TestRequest<Echo>(server.provider(), "/echo?live=1"))
        #expect(echo.args["live"] == ["1"])
        #expect(net.mocks.requests.count == 1)
    }

    @Test("A provider with areMocksEnabled = false stays live in mock mode")
    func liveProviderInMockMode() async throws {
        let server = try await TestServer.shared()
        let net = makeManager(mocks: try MockDirectory().url)
        let live = InterceptingProvider(port: server.port, areMocksEnabled: false)
        let echo = try await net.perform(TestRequest<Echo>(live, "/echo?live=2"))
        #expect(echo.args["live"] == ["2"])
        #expect(net.mocks.requests.isEmpty)
    }
}
