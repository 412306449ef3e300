import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A backend whose names resolve through a DNS over HTTPS resolver of its own.
struct DoHProvider: ServiceProvider {
    var host = "doh-test.invalid"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var dnsOverHTTPS: URL?
    var tls: TLSOptions?
}

@Suite("DNS over HTTPS", .sharing)
struct DNSOverHTTPSTests {
    @Test("http://doh-test.invalid:PORT resolves through the manager's resolver, which saw the query; copy-as-curl replays it")
    func throughTheManagersResolver() async throws {
        let server = try await TestServer.shared()
        try await withDoHServer { doh in
            let log = LogCollector()
            let net = makeManager(log: log)
            net.customCABundle = testCABundle
            net.dnsOverHTTPS = doh.url()
            let provider = DoHProvider(port: server.port)
            let echo = try await net.perform(TestRequest<Echo>(provider, "/echo"))
            #expect(echo.path == "/echo")
            #expect(log.text.contains("doh-test.invalid resolves through the DNS over HTTPS resolver https://127.0.0.1:\(doh.port)"),
                    "\(log.text)")
            #expect(doh.queries().contains("/dns-query 1 doh-test.invalid"), "\(doh.queries())")

            // Without the resolver the name does not resolve: the resolver is what found it.
            let plain = makeManager()
            let outcome = await FaultOutcome { () throws(NetworkError) in try await plain.perform(TestRequest<Echo>(provider, "/echo")) }
            #expect(outcome.error?.caseName == "reachability", "\(outcome)")

            let command = try await net.curlCommand(for: TestRequest<Echo>(provider, "/echo"))
            #expect(command.contains("--doh-url 'https://127.0.0.1:\(doh.port)/dns-query'"), "\(command)")
            let before = doh.queries().count
            let (status, _) = try await runShell(curlCommand(command, inserting: "-o /dev/null"))
            #expect(status == 0, "\(command)")
            #expect(doh.queries().count > before, "curl asked the resolver too")
        }
    }

    @Test("Copy-as-curl and the log hide a resolver's path and query (an account's token) unless it is /dns-query; unredacted, the command keeps them")
    func resolverTokenRedacted() async throws {
        let token = "tok3n-7f2a9c"
        let log = LogCollector()
        let net = makeManager(log: log)
        // Port 9 (discard) on loopback refuses at once: the lookup fails without waiting.
        let provider = DoHProvider(port: 9, dnsOverHTTPS: URL(string: "https://127.0.0.1:9/\(token)?client=\(token)"))
        let command = try await net.curlCommand(for: TestRequest<Echo>(provider, "/echo"))
        #expect(command.contains("--doh-url 'https://127.0.0.1:9/<redacted>'"), "\(command)")
        #expect(!command.contains(token), "\(command)")
        let plain = try await net.curlCommand(for: TestRequest<Echo>(provider, "/echo"), redactingSecrets: false)
        #expect(plain.contains("--doh-url 'https://127.0.0.1:9/\(token)?client=\(token)'"), "\(plain)")
        _ = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<Echo>(provider, "/echo", timeout: 2)) }
        #expect(!log.text.isEmpty && !log.text.contains(token), "\(log.text)")
    }

    @Test("A provider's resolver is used in place of the manager's, and a provider without one uses the manager's")
    func providersResolverWins() async throws {
        let server = try await TestServer.shared()
        try await withDoHServer { doh in
            let net = makeManager()
            net.customCABundle = testCABundle
            net.dnsOverHTTPS = doh.url("/wrong-id")
            let own = DoHProvider(port: server.port, dnsOverHTTPS: doh.url("/dns-query"))
            _ = try await net.perform(TestRequest<Echo>(own, "/echo"))
            #expect(doh.queries().contains("/dns-query 1 doh-test.invalid"), "\(doh.queries())")
            #expect(!doh.queries().contains { $0.hasPrefix("/wrong-id") }, "\(doh.queries())")

            let inheriting = DoHProvider(port: server.port)
            let outcome = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<Echo>(inheriting, "/echo")) }
            #expect(outcome.error?.caseName == "reachability", "\(outcome)")
            #expect(doh.queries().contains("/wrong-id 1 doh-test.invalid"), "\(doh.queries())")
        }
    }

    @Test("A resolver whose certificate the provider's TLS rules do not trust fails naming DNS over HTTPS; trusted by the provider's CA, it serves")
    func resolverIsVerifiedByTheProvidersTrust() async throws {
        let server = try await TestServer.shared()
        try await withDoHServer(chain: "unknownca-chain.pem", key: "unknownca-leaf.key") { doh in
            let net = makeManager()
            net.customCABundle = testCABundle
            let provider = DoHProvider(port: server.port, dnsOverHTTPS: doh.url())
            let error = await networkError { try await net.perform(TestRequest<Echo>(provider, "/echo")) }
            guard case .reachability(let context)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(context.reason?.contains("DNS over HTTPS resolver https://127.0.0.1:\(doh.port)") == true, "\(context)")
            #expect(context.reason?.contains("doh-test.invalid") == true, "\(context)")
            #expect(context.reason?.contains("/dns-query") == false, "only the resolver's origin is named: \(context)")

            var trusting = provider
            trusting.tls = TLSOptions(trustedCertificates: certificatesDirectory.appendingPathComponent("UnknownCA.pem"))
            _ = try await net.perform(TestRequest<Echo>(trusting, "/echo"))
        }
    }

    @Test("The origin's pins do not apply to the resolver, even one whose certificate names the origin too: a pinned https origin is reached through a resolver with another key, and still refused under other pins")
    func pinsApplyToTheOriginOnly() async throws {
        let certificates = try await TrustmeCertificates(names: ["doh-test.invalid"])
        // The resolver's certificate names the origin as well (one gateway serving both, say).
        let resolver = try await TrustmeCertificates(names: ["127.0.0.1", "doh-test.invalid"])
        let bundle = try temporaryDirectory().appendingPathComponent("both.pem")
        try (try Data(contentsOf: certificates.authority) + Data(contentsOf: resolver.authority)).write(to: bundle)
        let (status, output) = try await runShell("openssl x509 -in '\(certificates.chain.path)' -pubkey -noout | openssl pkey -pubin -outform der "
                                                  + "| openssl dgst -sha256 -binary | base64")
        #expect(status == 0)
        let originPin = "sha256/" + String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        try await withTestServer(["--tls-cert", certificates.chain.path, "--tls-key", certificates.key.path], tls: true) { server in
            try await withDoHServer(chain: resolver.chain, key: resolver.key) { doh in
                let net = makeManager()
                net.customCABundle = bundle
                net.dnsOverHTTPS = doh.url()
                // A rule for every host: were it applied to the resolver, its key would be refused.
                try net.configurePinning([PinningRule(publicKeyHashes: [originPin])], isEnabled: true)
                let provider = DoHProvider(httpScheme: .https, port: server.port)
                let echo = try await net.perform(TestRequest<Echo>(provider, "/echo"))
                #expect(echo.path == "/echo")
                #expect(doh.queries().contains("/dns-query 1 doh-test.invalid"), "\(doh.queries())")

                let other = makeManager()
                other.customCABundle = bundle
                other.dnsOverHTTPS = doh.url()
                try other.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "unrelated.pem")])], isEnabled: true)
                let outcome = await FaultOutcome { () throws(NetworkError) in try await other.perform(TestRequest<Echo>(provider, "/echo")) }
                #expect(outcome.error?.caseName == "invalidCertificate", "\(outcome)")
                #expect(outcome.error?.context?.reason?.contains("doh-test.invalid") == true, "\(outcome)")
            }
        }
    }

    @Test("A provider's serverTrust callback decides on the origin's chain only, not on the resolver's (whose certificate names the origin too)")
    func trustCallbackSeesTheOriginOnly() async throws {
        let certificates = try await TrustmeCertificates(names: ["doh-test.invalid"])
        let resolver = try await TrustmeCertificates(names: ["127.0.0.1", "doh-test.invalid"])
        let bundle = try temporaryDirectory().appendingPathComponent("both.pem")
        try (try Data(contentsOf: certificates.authority) + Data(contentsOf: resolver.authority)).write(to: bundle)
        try await withTestServer(["--tls-cert", certificates.chain.path, "--tls-key", certificates.key.path], tls: true) { server in
            try await withDoHServer(chain: resolver.chain, key: resolver.key) { doh in
                let leaves = Protected<Set<Data>>([])
                let tls = TLSOptions(trustedCertificates: bundle) { chain in
                    if let leaf = chain.first { leaves.withLock { _ = $0.insert(leaf) } }
                    return .accept
                }
                let provider = DoHProvider(httpScheme: .https, port: server.port, dnsOverHTTPS: doh.url(), tls: tls)
                _ = try await makeManager().perform(TestRequest<Echo>(provider, "/echo"))
                #expect(doh.queries().contains("/dns-query 1 doh-test.invalid"), "\(doh.queries())")
                #expect(leaves.withLock { $0.count } == 1, "the callback saw the origin's leaf, and no other")
            }
        }
    }

    @Test("A resolver URL that is not https, has credentials or no host fails with invalidRequest before sending, the password never shown",
          arguments: ["http://127.0.0.1/dns-query", "https://user:hunter2@127.0.0.1/dns-query", "https:///dns-query", "ftp://dns.example/"])
    func badResolverURL(_ text: String) async throws {
        let net = makeManager()
        net.dnsOverHTTPS = URL(string: text)
        let provider = DoHProvider(port: 1)
        let error = await networkError { try await net.perform(TestRequest<Echo>(provider, "/echo")) }
        guard case .invalidRequest(let context)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(context.reason?.contains("DNS over HTTPS resolver") == true, "\(context)")
        #expect(error?.errorDescription?.contains("hunter2") == false)
        #expect("\(String(describing: error))".contains("hunter2") == false)
    }
}
