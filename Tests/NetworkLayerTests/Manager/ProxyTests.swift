import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Proxies through libcurl, against real ones: tinyproxy (forwarding and CONNECT, Basic
/// credentials), mitmproxy (intercepting TLS), an HTTPS proxy with a CA of its own.
@Suite("Proxies", .sharing)
struct ProxyTests {
    static let proxyPassword = "pr0xy-Secr3t-9f"

    @Test("A plain http request goes through the proxy as a forwarded request")
    func plainHTTPThroughTheProxy() async throws {
        let server = try await TestServer.shared()
        try await withTinyProxy { proxy in
            let net = makeManager()
            net.proxy = .http(proxy.url)
            let echo = try await net.perform(TestRequest<Echo>(server.provider(), "/echo/plain"))
            #expect(echo.path == "/echo/plain")
            #expect(proxy.requests == ["GET http://127.0.0.1:\(server.port)/echo/plain HTTP/1.1"], "\(proxy.requests)")
        }
    }

    @Test("https goes through a CONNECT tunnel, and the origin's pins are enforced through it")
    func httpsThroughATunnelWithPins() async throws {
        try await withLegitServer { server in
            try await withTinyProxy { proxy in
                let net = makeTLSManager()
                net.proxy = .http(proxy.url)
                try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "localhost.pem")])], isEnabled: true)
                let echo = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo/tunnel"))
                #expect(echo.path == "/echo/tunnel")
                #expect(proxy.requests == ["CONNECT localhost:\(server.port) HTTP/1.1"], "\(proxy.requests)")

                // Other pins for the same origin, through the same proxy: refused before a byte is sent.
                let other = makeTLSManager()
                other.proxy = .http(proxy.url)
                try other.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "unrelated.pem")])], isEnabled: true)
                let before = server.recordedBytes().count
                let error = await networkError { try await other.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo/pinned")) }
                #expect(error?.caseName == "invalidCertificate", "\(String(describing: error))")
                #expect(error?.context?.reason?.contains("no public key in the certificate chain of localhost matches its pins") == true)
                #expect(server.recordedBytes().count == before)
            }
        }
    }

    @Test("A proxy demanding credentials is .unauthorizedAccess naming the proxy, for http and https; the right ones pass")
    func proxyAuthentication() async throws {
        let server = try await TestServer.shared()
        try await withLegitServer { tls in
            try await withTinyProxy(username: "alice", password: Self.proxyPassword) { proxy in
                let proxyName = "http://127.0.0.1:\(proxy.port)"
                let targets: [TestProvider] = [server.provider(), tls.provider(host: "localhost")]
                for (credentials, succeeds) in [((nil, nil), false), (("alice", "wrong-password"), false), (("alice", Self.proxyPassword), true)] {
                    let net = makeTLSManager()
                    net.proxy = .http(proxy.url, username: credentials.0, password: credentials.1)
                    for provider in targets {
                        if succeeds {
                            let echo = try await net.perform(TestRequest<Echo>(provider, "/echo/authenticated"))
                            #expect(echo.path == "/echo/authenticated")
                            continue
                        }
                        let error = await networkError { try await net.perform(TestRequest<Echo>(provider, "/echo")) }
                        #expect(error?.caseName == "unauthorizedAccess", "\(provider.httpScheme): \(String(describing: error))")
                        // tinyproxy answers wrong credentials with a plain 401 (not 407), which for a forwarded
                        // http request cannot be told from the origin's own 401: only that case is not named.
                        if provider.httpScheme == .http && credentials.0 != nil {
                            #expect(error?.context?.statusCode == 401, "\(String(describing: error))")
                            continue
                        }
                        #expect(error?.context?.reason?.contains("the proxy \(proxyName) demands authentication (") == true,
                                "\(String(describing: error))")
                    }
                }
            }
        }
    }

    @Test("Proxy credentials never reach the log, an error or copy-as-curl, unless asked")
    func credentialsAreSecrets() async throws {
        let server = try await TestServer.shared()
        try await withTinyProxy(username: "alice", password: Self.proxyPassword) { proxy in
            let log = LogCollector()
            let entries = LogEntryCollector()
            let net = makeManager(log: log, entries: entries)
            net.proxy = .http(URL(string: "http://alice:\(Self.proxyPassword)@127.0.0.1:\(proxy.port)")!)
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo/credentials"))
            // Wrong ones, so that an error is logged too.
            net.proxy = .http(proxy.url, username: "alice", password: Self.proxyPassword + "-wrong")
            let error = await networkError { try await net.perform(TestRequest<Echo>(server.provider(), "/echo")) }
            #expect(error?.caseName == "unauthorizedAccess")
            let errorText = "\(String(describing: error)) \(error?.errorDescription ?? "")"
            #expect(!errorText.contains(Self.proxyPassword))
            #expect(!log.text.contains(Self.proxyPassword))
            #expect(!entries.all.contains { "\($0)".contains(Self.proxyPassword) })

            net.proxy = .http(proxy.url, username: "alice", password: Self.proxyPassword, excluding: ["localhost", ".internal"])
            let redacted = try await net.curlCommand(for: TestRequest<Echo>(server.provider(), "/echo/curl"))
            #expect(!redacted.contains(Self.proxyPassword))
            // The user name is shown, as curl shows it; the password is not.
            #expect(redacted.contains("--proxy 'http://127.0.0.1:\(proxy.port)' --proxy-user 'alice:<redacted>' --noproxy 'localhost,.internal'"),
                    "\(redacted)")
            let command = try await net.curlCommand(for: TestRequest<Echo>(server.provider(), "/echo/curl"), redactingSecrets: false)
            #expect(command.contains("--proxy-user 'alice:\(Self.proxyPassword)'"))
            let (status, output) = try await runShell(curlCommand(command, inserting: "--silent --show-error --fail"))
            #expect(status == 0)
            #expect(try JSONDecoder().decode(Echo.self, from: output).path == "/echo/curl")
            #expect(proxy.requests.last == "GET http://127.0.0.1:\(server.port)/echo/curl HTTP/1.1")
        }
    }

    @Test("Hosts the proxy excludes go direct; others go through it")
    func excludedHostsGoDirect() async throws {
        let server = try await TestServer.shared()
        try await withTinyProxy { proxy in
            let net = makeManager()
            net.proxy = .http(proxy.url, excluding: ["127.0.0.1"])
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo/direct"))
            #expect(proxy.requests.isEmpty)
            _ = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo/proxied"))
            #expect(proxy.requests == ["GET http://localhost:\(server.port)/echo/proxied HTTP/1.1"], "\(proxy.requests)")
        }
    }

    @Test("A proxy that refuses the connection is .reachability naming the proxy, not the server")
    func refusedConnection() async throws {
        let server = try await TestServer.shared()
        let port = try closedPort()
        let net = makeManager()
        net.proxy = .http(URL(string: "http://127.0.0.1:\(port)")!)
        let error = await networkError { try await net.perform(TestRequest<Echo>(server.provider(), "/echo")) }
        #expect(error?.caseName == "reachability", "\(String(describing: error))")
        #expect(error?.context?.reason?.hasPrefix("the proxy http://127.0.0.1:\(port) refused the connection") == true,
                "\(String(describing: error))")
    }

    @Test("Connections through different proxies, or none, are never reused for one another")
    func connectionsAreNotReusedAcrossProxies() async throws {
        let server = try await TestServer.shared()
        try await withTinyProxy { first in
            try await withTinyProxy { second in
                let net = makeManager()
                for (index, proxy) in [ProxyConfiguration.http(first.url), .http(second.url), .none, .http(first.url), .http(second.url)].enumerated() {
                    net.proxy = proxy
                    _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo/\(index)"))
                }
                let target = "http://127.0.0.1:\(server.port)/echo/"
                #expect(first.requests == ["GET \(target)0 HTTP/1.1", "GET \(target)3 HTTP/1.1"], "\(first.requests)")
                #expect(second.requests == ["GET \(target)1 HTTP/1.1", "GET \(target)4 HTTP/1.1"], "\(second.requests)")
                // A connection reused across proxies would have put a request in the other proxy's log (or, for
                // .none, in one of them): each saw exactly its own. (tinyproxy closes client connections after
                // each forwarded request, so reuse within one proxy cannot be observed here.)
            }
        }
    }

    @Test("A provider's proxy overrides the manager's; ProxyConfiguration.none sends it direct")
    func providerProxyOverrides() async throws {
        let server = try await TestServer.shared()
        try await withTinyProxy { proxy in
            let net = makeManager()
            net.proxy = .http(URL(string: "http://127.0.0.1:\(try closedPort())")!)
            let direct = ProxiedProvider(port: server.port, proxy: ProxyConfiguration.none)
            #expect(try await net.perform(TestRequest<Echo>(direct, "/echo/direct")).path == "/echo/direct")
            let viaTiny = ProxiedProvider(port: server.port, proxy: .http(proxy.url))
            #expect(try await net.perform(TestRequest<Echo>(viaTiny, "/echo/tiny")).path == "/echo/tiny")
            #expect(proxy.requests == ["GET http://127.0.0.1:\(server.port)/echo/tiny HTTP/1.1"])
            let managers = ProxiedProvider(port: server.port, proxy: nil)
            let error = await networkError { try await net.perform(TestRequest<Echo>(managers, "/echo")) }
            #expect(error?.caseName == "reachability")
        }
    }

    @Test("An intercepting proxy is refused when the host is pinned, even with its CA trusted")
    func interceptingProxyRefusedWithPins() async throws {
        try await withLegitServer { server in
            try await withMitmProxy { mitm in
                let net = makeManager()
                net.customCABundle = mitm.caCertificate
                net.certificatesDirectory = certificatesDirectory
                net.proxy = .http(mitm.url)
                try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "localhost.pem")])], isEnabled: true)
                let error = await networkError { try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo")) }
                #expect(error?.caseName == "invalidCertificate", "\(String(describing: error))")
                #expect(error?.context?.reason?.contains("matches its pins") == true, "\(String(describing: error))")
                #expect(server.recordedBytes().isEmpty)
            }
        }
    }

    @Test("An intercepting proxy whose CA is not trusted is refused; trusted and without pins, it succeeds")
    func interceptingProxyWithAndWithoutTrust() async throws {
        try await withLegitServer { server in
            try await withMitmProxy { mitm in
                let untrusting = makeTLSManager()  // trusts the test CA, which signed the real server, not mitmproxy
                untrusting.proxy = .http(mitm.url)
                let error = await networkError { try await untrusting.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo")) }
                #expect(error?.caseName == "invalidCertificate", "\(String(describing: error))")
                #expect(server.recordedBytes().isEmpty)

                let trusting = makeManager()
                trusting.customCABundle = mitm.caCertificate
                trusting.proxy = .http(mitm.url)
                let echo = try await trusting.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo/intercepted"))
                #expect(echo.path == "/echo/intercepted")
            }
        }
    }

    @Test("An HTTPS proxy's own certificate is verified with the same CA settings; the pins stay the origin's")
    func httpsProxy() async throws {
        try await withLegitServer { server in
            try await withHTTPSConnectProxy { proxy in
                let net = makeTLSManager()
                net.customCABundle = try proxy.bundleWithTestCA()
                net.proxy = .http(proxy.url)
                try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "localhost.pem")])], isEnabled: true)
                let echo = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo/through-https-proxy"))
                #expect(echo.path == "/echo/through-https-proxy")
                #expect(proxy.connects == ["localhost:\(server.port)"])

                // The proxy's CA not trusted: its certificate fails, and the error names the proxy.
                let untrusting = makeTLSManager()
                untrusting.proxy = .http(proxy.url)
                let error = await networkError { try await untrusting.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo")) }
                #expect(error?.caseName == "invalidCertificate", "\(String(describing: error))")
                #expect(error?.context?.reason?.contains("the certificate of the proxy https://127.0.0.1:\(proxy.port) failed verification") == true,
                        "\(String(describing: error))")

                // Other pins for the origin: the tunnel opens, the origin's handshake is refused.
                let pinnedElsewhere = makeTLSManager()
                pinnedElsewhere.customCABundle = try proxy.bundleWithTestCA()
                pinnedElsewhere.proxy = .http(proxy.url)
                try pinnedElsewhere.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "unrelated.pem")])],
                                                     isEnabled: true)
                let before = server.recordedBytes().count
                let mismatch = await networkError { try await pinnedElsewhere.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo")) }
                #expect(mismatch?.context?.reason?.contains("no public key in the certificate chain of localhost matches its pins") == true,
                        "\(String(describing: mismatch))")
                #expect(server.recordedBytes().count == before)
            }
        }
    }

    @Test("A proxy URL of another scheme is refused before anything is sent",
          arguments: [ProxyConfiguration.http(URL(string: "ftp://127.0.0.1:21")!), .socks5(URL(string: "http://127.0.0.1:1080")!),
                      .http(URL(string: "http://127.0.0.1:3128")!, excluding: ["bad host"]),
                      .http(URL(string: "http://127.0.0.1:3128")!, username: "u\r\nX-Injected: 1", password: "p")])
    func invalidProxy(_ proxy: ProxyConfiguration) async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.proxy = proxy
        let error = await networkError { try await net.perform(TestRequest<Echo>(server.provider(), "/echo")) }
        #expect(error?.caseName == "invalidRequest", "\(String(describing: error))")
        #expect(error?.context?.reason?.contains("proxy") == true)
    }

    @Test("A SOCKS5 proxy carries the request")
    func socks5() async throws {
        let server = try await TestServer.shared()
        try await withMitmProxy(mode: "socks5") { socks in
            let net = makeManager()
            net.proxy = .socks5(URL(string: "socks5h://127.0.0.1:\(socks.port)")!)
            #expect(try await net.perform(TestRequest<Echo>(server.provider(), "/echo/socks")).path == "/echo/socks")
            let command = try await net.curlCommand(for: TestRequest<Echo>(server.provider(), "/echo/socks"))
            #expect(command.contains("--proxy 'socks5h://127.0.0.1:\(socks.port)'"), "\(command)")
        }
    }

    @Test("no_proxy matching follows curl: the host, its subdomains, a leading dot, addresses, CIDR ranges, *")
    func noProxyMatching() {
        let cases: [(String, String, Bool)] = [
            ("example.com", "example.com", true), ("example.com", "api.example.com", true), (".example.com", "api.example.com", true),
            ("example.com", "notexample.com", false), ("example.com", "example.com.evil", false), ("*", "anything", true),
            ("localhost, .internal", "db.internal", true), ("10.0.0.0/8", "10.1.2.3", true), ("10.0.0.0/8", "11.0.0.1", false),
            ("127.0.0.1", "127.0.0.1", true), ("::1", "[::1]", true), ("fd00::/8", "[fd12::1]", true), ("fd00::/8", "[fe80::1]", false),
            ("", "example.com", false), ("Example.COM", "API.example.com", true),
        ]
        for (list, host, expected) in cases {
            #expect(ProxyConfiguration.excludes(list, host: host) == expected, "\(list) / \(host)")
        }
    }
}

/// The environment variables curl reads. Each request that needs them is sent by a probe process
/// whose environment is set when it is spawned (``RequestProbe``): the test process's own is never
/// changed, so these tests run in parallel with any other.
@Suite("Proxies from the environment", .sharing)
struct EnvironmentProxyTests {
    @Test("By default the environment's http_proxy is used; .none ignores it; no_proxy sends a host direct")
    func environmentProxy() async throws {
        let server = try await TestServer.shared()
        try await withTinyProxy { proxy in
            #expect(makeManager().proxy == .environment)
            let environment = ["http_proxy": proxy.url.absoluteString]
            let proxied = try await RequestProbe.send(.get("/echo/environment"), port: server.port, environment: environment)
            #expect(try proxied.decoded(Echo.self).path == "/echo/environment", "\(proxied)")
            #expect(proxy.requests == ["GET http://127.0.0.1:\(server.port)/echo/environment HTTP/1.1"], "\(proxy.requests)")
            #expect(ProxyConfiguration.environment.proxyDescription(for: URL(string: "http://127.0.0.1/")!, environment: environment)
                    == proxy.url.absoluteString)

            let direct = try await RequestProbe.send(.get("/echo/none", proxyNone: true), port: server.port, environment: environment)
            #expect(try direct.decoded(Echo.self).path == "/echo/none", "\(direct)")
            #expect(proxy.requests.count == 1, "\(proxy.requests)")
            let net = makeManager()
            net.proxy = .none
            let command = try await net.curlCommand(for: TestRequest<Echo>(server.provider(), "/echo/none"))
            #expect(command.contains("--noproxy '*'"))

            let excluded = try await RequestProbe.send(.get("/echo/no-proxy"), port: server.port,
                                                       environment: environment.merging(["no_proxy": "localhost,127.0.0.1"]) { $1 })
            #expect(try excluded.decoded(Echo.self).path == "/echo/no-proxy", "\(excluded)")
            #expect(proxy.requests.count == 1, "\(proxy.requests)")
        }
    }

    @Test("A refused environment proxy is named in the error")
    func environmentProxyRefused() async throws {
        let server = try await TestServer.shared()
        let dead = "http://127.0.0.1:\(try closedPort())"
        let report = try await RequestProbe.send(.get("/echo"), port: server.port, environment: ["http_proxy": dead])
        #expect(report.outcome == "reachability", "\(report)")
        #expect(report.reason?.hasPrefix("the proxy \(dead) refused the connection") == true, "\(report)")
    }
}
