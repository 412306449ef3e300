import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

@Suite("Host overrides", .sharing)
struct HostOverrideTests {
    @Test("https://api.test:PORT reaches a server on 127.0.0.1 through the override: TLS checks api.test, the Host header says api.test, the log shows both")
    func throughTheOverride() async throws {
        let certificates = try await TrustmeCertificates(names: ["api.test"])
        try await withEchoServer(tls: true, certificate: certificates.chain, key: certificates.key) { server in
            let log = LogCollector()
            let net = makeManager(log: log)
            net.customCABundle = certificates.authority
            net.hostOverrides = ["api.test:\(server.port)": "127.0.0.1:\(server.port)"]
            let provider = TestProvider(host: "api.test", httpScheme: .https, port: server.port)
            let (received, response) = try await net.performWithResponse(EchoedRequest(provider, "/override"))
            // The name, not the address: HTTP/1.1's Host, or HTTP/2's :authority (hypercorn reports it as host).
            #expect(received.values("host") == ["api.test:\(server.port)"])
            #expect(response.metrics?.remoteAddress == "127.0.0.1")
            #expect(log.text.contains("→ GET https://api.test:\(server.port)/override"))
            #expect(log.text.contains("api.test:\(server.port) connects to 127.0.0.1:\(server.port) (a host override)"))

            // Without the override the name does not resolve: the override is what connected.
            let plain = makeManager()
            plain.customCABundle = certificates.authority
            let outcome = await FaultOutcome { () throws(NetworkError) in try await plain.perform(EchoedRequest(provider, "/override")) }
            #expect(outcome.error?.caseName == "reachability", "\(outcome)")

            // Copy-as-curl connects curl the same way.
            let command = try await net.curlCommand(for: EchoedRequest(provider, "/override"))
            #expect(command.contains("--connect-to 'api.test:\(server.port):127.0.0.1:\(server.port)'"))
            let (status, _) = try await runShell(curlCommand(command, inserting: "-o /dev/null"))
            #expect(status == 0, "\(command)")
        }
    }

    @Test("Pins apply by the name: pins made for another key refuse the server reached through the override")
    func pinsByName() async throws {
        let certificates = try await TrustmeCertificates(names: ["api.test"])
        try await withEchoServer(tls: true, certificate: certificates.chain, key: certificates.key) { server in
            let net = makeManager()
            net.customCABundle = certificates.authority
            net.hostOverrides = ["api.test:\(server.port)": "127.0.0.1:\(server.port)"]
            try net.configurePinning([PinningRule(hosts: ["api.test"], publicKeyHashes: [try pin(of: "unrelated.pem")])], isEnabled: true)
            let provider = TestProvider(host: "api.test", httpScheme: .https, port: server.port)
            let outcome = await FaultOutcome { () throws(NetworkError) in try await net.perform(EchoedRequest(provider, "/pinned")) }
            #expect(outcome.error?.caseName == "invalidCertificate", "\(outcome)")
            #expect(outcome.error?.context?.reason?.contains("api.test") == true)
        }
    }

    @Test("An override that is not host:port fails every request with .invalidRequest naming it; nothing is sent",
          arguments: [["api.test": "127.0.0.1:1"], ["api.test:443": "127.0.0.1"], ["api.test:99999": "127.0.0.1:1"],
                      ["api.test:443": "10.0.0.1:8443\r\nX: y"], ["a b:443": "127.0.0.1:1"]])
    func invalidOverrides(overrides: [String: String]) async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.hostOverrides = overrides
        let outcome = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<Echo>(server.provider(), "/echo")) }
        #expect(outcome.error?.caseName == "invalidRequest", "\(outcome)")
        #expect(outcome.error?.context?.reason?.contains("host override") == true)
        #expect(outcome.error?.errorDescription?.contains("\r") == false)
        #expect(net.hostOverrides == overrides)
    }
}
