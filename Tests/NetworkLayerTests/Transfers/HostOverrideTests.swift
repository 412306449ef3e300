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

    @Test("An override to an IPv6 address ([::1]:PORT) connects there; TLS checks the name; copy-as-curl replays it")
    func toIPv6() async throws {
        let certificates = try await TrustmeCertificates(names: ["api.test"])
        let arguments = ["--host", "::1", "--tls-cert", certificates.chain.path, "--tls-key", certificates.key.path]
        try await withTestServer(arguments, tls: true) { server in
            let log = LogCollector()
            let net = makeManager(log: log)
            net.customCABundle = certificates.authority
            net.hostOverrides = ["api.test:\(server.port)": "[::1]:\(server.port)"]
            let provider = TestProvider(host: "api.test", httpScheme: .https, port: server.port)
            let (echo, response) = try await net.performWithResponse(TestRequest<Echo>(provider, "/echo"))
            #expect(echo.header("Host") == "api.test:\(server.port)")
            #expect(response.metrics?.remoteAddress == "::1")
            #expect(log.text.contains("api.test:\(server.port) connects to [::1]:\(server.port) (a host override)"), "\(log.text)")
            let command = try await net.curlCommand(for: TestRequest<Echo>(provider, "/echo"))
            #expect(command.contains("--connect-to 'api.test:\(server.port):[::1]:\(server.port)'"), "\(command)")
            let (status, _) = try await runShell(curlCommand(command, inserting: "-o /dev/null"))
            #expect(status == 0, "\(command)")
        }
    }

    @Test("An IPv6 address is overridden too: a request for http://[::1]:PORT connects to 127.0.0.1 instead")
    func fromIPv6() async throws {
        let server = try await TestServer.shared()  // listening on 127.0.0.1 only
        let log = LogCollector()
        let net = makeManager(log: log)
        net.hostOverrides = ["[::1]:\(server.port)": "127.0.0.1:\(server.port)"]
        let provider = TestProvider(host: "[::1]", httpScheme: .http, port: server.port)
        let (echo, response) = try await net.performWithResponse(TestRequest<Echo>(provider, "/echo"))
        #expect(echo.header("Host") == "[::1]:\(server.port)")
        #expect(response.metrics?.remoteAddress == "127.0.0.1")
        #expect(log.text.contains("[::1]:\(server.port) connects to 127.0.0.1:\(server.port) (a host override)"), "\(log.text)")
    }

    @Test("Two managers sending one name to two servers never share a connection (libcurl's reuse keeps the override)")
    func connectionsKeepTheirOverride() async throws {
        try await withTestServer { first in
            try await withTestServer { second in
                let toFirst = makeManager()
                toFirst.hostOverrides = ["api.test:\(first.port)": "127.0.0.1:\(first.port)"]
                let toSecond = makeManager()
                toSecond.hostOverrides = ["api.test:\(first.port)": "127.0.0.1:\(second.port)"]
                let provider = TestProvider(host: "api.test", httpScheme: .http, port: first.port)
                for _ in 0..<5 {
                    _ = try await toFirst.perform(TestRequest<Echo>(provider, "/echo"))
                    _ = try await toSecond.perform(TestRequest<Echo>(provider, "/echo"))
                }
                #expect(try await first.receivedRequestCount() == 5)
                #expect(try await second.receivedRequestCount() == 5)
            }
        }
    }

    @Test("Overrides changed between requests are followed at once, also by a pooled handle kept configured")
    func changedOverrides() async throws {
        try await withTestServer { first in
            try await withTestServer { second in
                let net = makeManager()
                let provider = TestProvider(host: "api.test", httpScheme: .http, port: first.port)
                var expected = (first: 0, second: 0)
                // Plain GETs: a pooled handle keeps its options (its baseline) for the next one that
                // matches. Each new set of overrides is a new object; old ones are freed as they go.
                for round in 0..<60 {
                    let target = round % 2 == 0 ? second.port : first.port
                    net.hostOverrides = [:]  // the last set is freed before the next is made
                    net.hostOverrides = ["api.test:\(first.port)": "127.0.0.1:\(target)"]
                    _ = try await net.perform(TestRequest<Echo>(provider, "/echo"))
                    if target == first.port { expected.first += 1 } else { expected.second += 1 }
                }
                #expect(try await first.receivedRequestCount() == expected.first)
                #expect(try await second.receivedRequestCount() == expected.second)
            }
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
