import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A backend with resolve entries of its own.
struct StaticResolveProvider: ServiceProvider {
    var host = "static-test.invalid"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var resolve: [ResolveEntry]?
}

@Suite("Resolve entries", .sharing)
struct ResolveEntryTests {
    @Test("A resolve entry pins static-test.invalid:PORT to 127.0.0.1: the request works, the Host stays the name, the log says so, copy-as-curl replays it")
    func entryResolvesTheName() async throws {
        let server = try await TestServer.shared()
        let log = LogCollector()
        let net = makeManager(log: log)
        net.resolve = [ResolveEntry(host: "static-test.invalid", port: server.port, addresses: ["127.0.0.1"])]
        let provider = StaticResolveProvider(port: server.port)
        let (echo, response) = try await net.performWithResponse(TestRequest<Echo>(provider, "/echo"))
        #expect(echo.header("Host") == "static-test.invalid:\(server.port)")
        #expect(response.metrics?.remoteAddress == "127.0.0.1")
        #expect(log.text.contains("static-test.invalid:\(server.port) resolves to 127.0.0.1 (a resolve entry)"), "\(log.text)")

        let plain = makeManager()
        let outcome = await FaultOutcome { () throws(NetworkError) in try await plain.perform(TestRequest<Echo>(provider, "/echo")) }
        #expect(outcome.error?.caseName == "reachability", "without the entry the name does not resolve: \(outcome)")

        let command = try await net.curlCommand(for: TestRequest<Echo>(provider, "/echo"))
        #expect(command.contains("--resolve 'static-test.invalid:\(server.port):127.0.0.1'"), "\(command)")
        let (status, _) = try await runShell(curlCommand(command, inserting: "-o /dev/null"))
        #expect(status == 0, "\(command)")
    }

    @Test("A provider's entries are used in place of the manager's; an entry for another port leaves the name unresolved")
    func providersEntriesWin() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.resolve = [ResolveEntry(host: "static-test.invalid", port: server.port, addresses: ["127.0.0.2"])]
        let own = StaticResolveProvider(port: server.port,
                                        resolve: [ResolveEntry(host: "static-test.invalid", port: server.port, addresses: ["127.0.0.1"])])
        let (_, response) = try await net.performWithResponse(TestRequest<Echo>(own, "/echo"))
        #expect(response.metrics?.remoteAddress == "127.0.0.1")

        // The manager's entry sends the connection to 127.0.0.2, where nothing listens.
        let inheriting = StaticResolveProvider(port: server.port)
        let refused = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<Echo>(inheriting, "/echo")) }
        #expect(refused.error?.caseName == "reachability", "\(refused)")

        let otherPort = StaticResolveProvider(port: server.port, resolve: [ResolveEntry(host: "static-test.invalid", port: 1, addresses: ["127.0.0.1"])])
        let unresolved = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<Echo>(otherPort, "/echo")) }
        #expect(unresolved.error?.caseName == "reachability", "\(unresolved)")
    }

    @Test("A bad entry fails with invalidRequest naming what is wrong, before sending", arguments: [
        (ResolveEntry(host: "a:b", port: 80, addresses: ["127.0.0.1"]), "is not a host name"),
        (ResolveEntry(host: "a,b", port: 80, addresses: ["127.0.0.1"]), "is not a host name"),
        (ResolveEntry(host: "a\r\nb", port: 80, addresses: ["127.0.0.1"]), "is not a host name"),
        (ResolveEntry(host: "-api.test", port: 80, addresses: ["127.0.0.1"]), "is not a host name"),
        (ResolveEntry(host: "", port: 80, addresses: ["127.0.0.1"]), "is not a host name"),
        (ResolveEntry(host: "api.test", port: 0, addresses: ["127.0.0.1"]), "a port is 1...65535"),
        (ResolveEntry(host: "api.test", port: 80, addresses: []), "give 1 to 64"),
        (ResolveEntry(host: "api.test", port: 80, addresses: ["localhost"]), "not an IPv4 or IPv6 address"),
        (ResolveEntry(host: "api.test", port: 80, addresses: ["127.0.0.1,10.0.0.1"]), "not an IPv4 or IPv6 address"),
        (ResolveEntry(host: "api.test", port: 80, addresses: ["999.0.0.1"]), "not an IPv4 or IPv6 address"),
    ])
    func badEntry(_ entry: ResolveEntry, _ expected: String) async throws {
        let net = makeManager()
        net.resolve = [entry]
        let error = await networkError { try await net.perform(TestRequest<Echo>(StaticResolveProvider(host: "api.test", port: 80), "/echo")) }
        guard case .invalidRequest(let context)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(context.reason?.contains(expected) == true, "\(context)")
        #expect(context.reason?.contains("\r") == false)
    }

    @Test("An IPv6 entry, with or without brackets, connects to ::1")
    func ipv6Entry() async throws {
        try await withTestServer(["--host", "::1"]) { server in
            for address in ["::1", "[::1]"] {
                let net = makeManager()
                net.resolve = [ResolveEntry(host: "static-test.invalid", port: server.port, addresses: [address])]
                let (_, response) = try await net.performWithResponse(TestRequest<Echo>(StaticResolveProvider(port: server.port), "/echo"))
                #expect(response.metrics?.remoteAddress == "::1")
            }
        }
    }
}
