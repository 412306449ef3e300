import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The port trap of issue 28: `var port: Int { 8765 }` used to compile as a property of its own
/// beside the requirement `var port: Int? { get }`, and every request went to port 80. Now the
/// provider's own `port` is the requirement's witness, whether it is an `Int` or an `Int?`,
/// computed or stored, and a `port` of any other type does not compile.
@Suite("The provider's port", .sharing)
struct ProviderPortTests {
    /// The first declaration a new user writes: a computed `Int`.
    struct ComputedIntPort: ServiceProvider {
        let server: TestServer
        var host: String { "127.0.0.1" }
        var httpScheme: HTTPScheme { .http }
        var port: Int { server.port }
    }

    /// A stored `Int`, its type inferred from the initial value: `var port = 8080`.
    struct StoredIntPort: ServiceProvider {
        var host = "127.0.0.1"
        var httpScheme = HTTPScheme.http
        var port = 8080
    }

    /// A constant `Int` set by the memberwise initializer.
    struct ConstantIntPort: ServiceProvider {
        let port: Int
        var host: String { "127.0.0.1" }
        var httpScheme: HTTPScheme { .http }
    }

    /// The spelling the requirement used to have: `Int?`.
    struct OptionalPort: ServiceProvider {
        var port: Int?
        var host: String { "127.0.0.1" }
        var httpScheme: HTTPScheme { .http }
    }

    /// No port at all: the scheme's.
    struct NoPort: ServiceProvider {
        var host: String { "127.0.0.1" }
        var httpScheme: HTTPScheme { .http }
    }

    @Test("A provider declaring `var port: Int { server.port }` reaches the server on that port")
    func computedIntPortReachesTheServer() async throws {
        let server = try await TestServer.shared()
        let provider = ComputedIntPort(server: server)
        let (echo, response) = try await makeManager().performWithResponse(TestRequest<Echo>(provider, "/echo/computed"))
        #expect(echo.path == "/echo/computed")
        #expect(response.url.port == server.port)
    }

    @Test("A provider with a stored `var port = …` or `let port: Int` reaches the server on that port")
    func storedIntPortReachesTheServer() async throws {
        let server = try await TestServer.shared()
        var stored = StoredIntPort()
        stored.port = server.port
        let (echo, response) = try await makeManager().performWithResponse(TestRequest<Echo>(stored, "/echo/stored"))
        #expect(echo.path == "/echo/stored")
        #expect(response.url.port == server.port)
        let constant = try await makeManager().perform(TestRequest<Echo>(ConstantIntPort(port: server.port), "/echo/constant"))
        #expect(constant.path == "/echo/constant")
    }

    @Test("Every spelling puts its port in the URL, and portNumber reads it through `any ServiceProvider`")
    func everySpellingInTheURL() async throws {
        let server = try await TestServer.shared()
        let cases: [(any ServiceProvider, String)] = [
            (ComputedIntPort(server: server), "http://127.0.0.1:\(server.port)/x"),
            (StoredIntPort(), "http://127.0.0.1:8080/x"),
            (ConstantIntPort(port: 8765), "http://127.0.0.1:8765/x"),
            (OptionalPort(port: 8443), "http://127.0.0.1:8443/x"),
            (OptionalPort(port: nil), "http://127.0.0.1/x"),
            (NoPort(), "http://127.0.0.1/x"),
        ]
        let net = makeManager()
        net.areMocksEnabled = true
        net.mocks.register(.get, "/x", .status(204))
        for (provider, url) in cases {
            _ = try await net.perform(TestRequest<EmptyResponse>(provider, "/x"))
            #expect(net.mocks.requests.last?.url.absoluteString == url, "\(type(of: provider))")
            #expect(provider.portNumber == URL(string: url)?.port, "\(type(of: provider))")
        }
    }

    @Test("A `port` of another type than Int or Int? does not compile, and the note says which type would",
          arguments: ["var port: UInt16 { 8765 }", "var port = \"8080\"", "var port = 8080.0", "let port: Int32 = 1"])
    func anotherTypeDoesNotCompile(declaration: String) async throws {
        // The same provider with `Int` compiles: the check below fails for the type, not for the harness.
        let control = try await Toolchain.typecheck(Self.provider(declaring: "var port: Int { 8765 }"))
        #expect(control.status == 0, "\(control)")
        let outcome = try await Toolchain.typecheck(Self.provider(declaring: declaration))
        #expect(outcome.status != 0, "`\(declaration)` compiled: the provider would silently use the default port")
        #expect(outcome.output.contains("does not conform to protocol 'ServiceProvider'"), "\(outcome)")
        #expect(outcome.output.contains("was the same type as 'Int'"), "\(outcome)")
    }

    static func provider(declaring port: String) -> String {
        """
        import NetworkLayer
        struct Backend: ServiceProvider {
            var host: String { "127.0.0.1" }
            var httpScheme: HTTPScheme { .http }
            \(port)
        }
        """
    }
}
