import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A loopback backend by name (`localhost`, which libcurl resolves to 127.0.0.1 and ::1), with
/// connection settings of its own.
struct ConnectingProvider: ServiceProvider {
    var host = "localhost"
    var httpScheme: HTTPScheme { .http }
    var port: Int?
    var ipFamily: IPFamily?
    var dnsCacheTimeout: Duration?
    var happyEyeballsTimeout: Duration?
    var networkInterface: String?
}

@Suite("IP family, DNS cache, Happy Eyeballs, interface", .sharing)
struct ConnectingTests {
    @Test("An IPv6-only listener on ::1 is reached with .ipv6Only; .ipv4Only fails, even with its connection kept alive")
    func ipv6OnlyListener() async throws {
        try await withTestServer(["--host", "::1"]) { server in
            let net = makeManager()
            net.ipFamily = .ipv6Only
            let provider = ConnectingProvider(port: server.port)
            let (_, response) = try await net.performWithResponse(TestRequest<Echo>(provider, "/echo"))
            #expect(response.metrics?.remoteAddress == "::1")

            net.ipFamily = .ipv4Only
            let error = await networkError { try await net.perform(TestRequest<Echo>(provider, "/echo")) }
            guard case .reachability = error else { Issue.record("got \(String(describing: error))"); return }

            // The provider's setting wins over the manager's.
            _ = try await net.perform(TestRequest<Echo>(ConnectingProvider(port: server.port, ipFamily: .ipv6Only), "/echo"))
        }
    }

    @Test("An IPv4-only listener is not reached with .ipv6Only, and is with .any")
    func ipv4OnlyListener() async throws {
        try await withTestServer { server in
            let net = makeManager()
            let error = await networkError {
                try await net.perform(TestRequest<Echo>(ConnectingProvider(port: server.port, ipFamily: .ipv6Only), "/echo"))
            }
            guard case .reachability = error else { Issue.record("got \(String(describing: error))"); return }
            let (_, response) = try await net.performWithResponse(TestRequest<Echo>(ConnectingProvider(port: server.port), "/echo"))
            #expect(response.metrics?.remoteAddress == "127.0.0.1")
        }
    }

    @Test("Connections leave from the interface named; one that does not exist fails naming it")
    func networkInterface() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.networkInterface = "lo"
            _ = try await net.perform(TestRequest<Echo>(ConnectingProvider(host: "127.0.0.1", port: server.port), "/echo"))
            let provider = ConnectingProvider(host: "127.0.0.1", port: server.port, networkInterface: "nl-missing0")
            let error = await networkError { try await net.perform(TestRequest<Echo>(provider, "/echo")) }
            guard case .reachability = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(error?.errorDescription?.contains("\"nl-missing0\" could not be used") == true, "\(error?.errorDescription ?? "")")
        }
    }

    @Test("Settings out of bounds fail before anything is sent, saying which",
          arguments: [
            (ConnectingProvider(dnsCacheTimeout: .seconds(-1)), "DNS cache timeout must be between 0 and 1 day"),
            (ConnectingProvider(dnsCacheTimeout: .seconds(86_401)), "DNS cache timeout must be between 0 and 1 day"),
            (ConnectingProvider(happyEyeballsTimeout: .seconds(-1)), "Happy Eyeballs timeout must be between 0 and 60 seconds"),
            (ConnectingProvider(happyEyeballsTimeout: .seconds(3600)), "Happy Eyeballs timeout must be between 0 and 60 seconds"),
            (ConnectingProvider(dnsCacheTimeout: .seconds(1e20)), "DNS cache timeout must be between 0 and 1 day"),
            (ConnectingProvider(happyEyeballsTimeout: .seconds(1e20)), "Happy Eyeballs timeout must be between 0 and 60 seconds"),
            (ConnectingProvider(happyEyeballsTimeout: .seconds(-1e20)), "Happy Eyeballs timeout must be between 0 and 60 seconds"),
            (ConnectingProvider(networkInterface: "eth0\r\nX: y"), "is not a name"),
            (ConnectingProvider(networkInterface: ""), "is not a name"),
          ])
    func outOfBounds(provider: ConnectingProvider, reason: String) async throws {
        try await withTestServer { server in
            var provider = provider
            provider.port = server.port
            let error = await networkError { try await makeManager().perform(TestRequest<Echo>(provider, "/echo")) }
            guard case .invalidRequest = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(error?.errorDescription?.contains(reason) == true, "\(error?.errorDescription ?? "")")
            #expect(error?.errorDescription?.contains("\n") == false)
            // Copy-as-curl of the refused request renders (or refuses) it: a Duration beyond Int64.max s does not trap.
            _ = try? await makeManager().curlCommand(for: TestRequest<Echo>(provider, "/echo"))
        }
    }

    @Test("The settings in range are accepted; copy-as-curl shows -6, the Happy Eyeballs timeout and the interface, and replays")
    func copyAsCurl() async throws {
        try await withTestServer(["--host", "::1"]) { server in
            let net = makeManager()
            net.dnsCacheTimeout = .seconds(0)
            net.happyEyeballsTimeout = .milliseconds(250)
            net.networkInterface = "lo"
            let provider = ConnectingProvider(port: server.port, ipFamily: .ipv6Only)
            _ = try await net.perform(TestRequest<Echo>(provider, "/echo"))
            let command = try await net.curlCommand(for: TestRequest<Echo>(provider, "/echo"))
            #expect(command.contains(" -6 "), "\(command)")
            #expect(command.contains("--happy-eyeballs-timeout-ms 250"), "\(command)")
            #expect(command.contains("--interface 'lo'"), "\(command)")
            let (status, output) = try await runShell(command)
            #expect(status == 0)
            #expect(String(decoding: output, as: UTF8.self).contains("\"path\": \"/echo\""))
        }
    }
}
