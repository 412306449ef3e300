import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A TLS backend with options of its own, on a loopback server presenting the test chain.
struct TLSProvider: ServiceProvider {
    var host = "localhost"
    var httpScheme: HTTPScheme { .https }
    var port: Int?
    var tls: TLSOptions?
}

/// The test CA, as a provider's own trusted certificates.
let testCABundle = certificatesDirectory.appendingPathComponent("TestCABundle.pem")

/// A TLS server for localhost presenting the legitimate chain, with `extra` arguments
/// (`--tls-min-version TLSv1_3`, `--tls-max-version TLSv1_2`, `--tls-ciphers ...`).
func withLegitServer<T>(_ extra: [String], _ body: (TestServer) async throws -> T) async throws -> T {
    try await withTLSServer("localhost-chain.pem", key: "localhost.key", extra: extra, body)
}

@Suite("TLS options per provider", .sharing)
struct TLSOptionsTests {
    @Test("A server that speaks only TLS 1.3 serves a provider requiring 1.3; one capped at 1.2 is refused naming both")
    func tls13OnlyServer() async throws {
        try await withLegitServer(["--tls-min-version", "TLSv1_3"]) { server in
            let net = makeManager()  // no CA of its own: the provider's trusted certificates make the difference
            let strict = TLSProvider(port: server.port, tls: TLSOptions(minimumVersion: .v1_3, trustedCertificates: testCABundle))
            let echo = try await net.perform(TestRequest<Echo>(strict, "/echo"))
            #expect(echo.path == "/echo")

            let capped = TLSProvider(port: server.port, tls: TLSOptions(maximumVersion: .v1_2, trustedCertificates: testCABundle))
            let error = await networkError { try await net.perform(TestRequest<Echo>(capped, "/secret")) }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            let description = error?.errorDescription ?? ""
            #expect(description.contains("TLS 1.2 to 1.2") || description.contains("TLS 1.2 only"), "\(description)")
            #expect(description.contains("protocol version"), "OpenSSL's reason is kept: \(description)")
            #expect(!server.recordedBytes().contains("/secret".utf8), "nothing was sent")
        }
    }

    @Test("A server that speaks only TLS 1.2 fails a provider requiring 1.3 and serves the manager's default")
    func tls12OnlyServer() async throws {
        try await withLegitServer(["--tls-max-version", "TLSv1_2"]) { server in
            let net = makeManager()
            let strict = TLSProvider(port: server.port, tls: TLSOptions(minimumVersion: .v1_3, trustedCertificates: testCABundle))
            let error = await networkError { try await net.perform(TestRequest<Echo>(strict, "/echo")) }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(error?.errorDescription?.contains("TLS 1.3 or later") == true, "\(error?.errorDescription ?? "")")

            let ordinary = TLSProvider(port: server.port, tls: TLSOptions(trustedCertificates: testCABundle))
            _ = try await net.perform(TestRequest<Echo>(ordinary, "/echo"))
        }
    }

    @Test("TLS 1.2 ciphers: one the server offers connects; only refused ones fail saying which were required")
    func cipherSuites() async throws {
        try await withLegitServer(["--tls-max-version", "TLSv1_2", "--tls-ciphers", "ECDHE-ECDSA-AES256-GCM-SHA384"]) { server in
            let net = makeManager()
            let matching = TLSProvider(port: server.port, tls: TLSOptions(maximumVersion: .v1_2,
                                                                          cipherSuites: ["ECDHE-ECDSA-AES256-GCM-SHA384"],
                                                                          trustedCertificates: testCABundle))
            _ = try await net.perform(TestRequest<Echo>(matching, "/echo"))

            let refused = TLSProvider(port: server.port, tls: TLSOptions(maximumVersion: .v1_2,
                                                                         cipherSuites: ["ECDHE-ECDSA-CHACHA20-POLY1305"],
                                                                         trustedCertificates: testCABundle))
            let error = await networkError { try await net.perform(TestRequest<Echo>(refused, "/echo")) }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(error?.errorDescription?.contains("ECDHE-ECDSA-CHACHA20-POLY1305") == true, "\(error?.errorDescription ?? "")")
        }
    }

    @Test("TLS 1.3 suites reach the handshake: a server speaking 1.3 only and a suite it has connects")
    func tls13Suites() async throws {
        try await withLegitServer(["--tls-min-version", "TLSv1_3"]) { server in
            let provider = TLSProvider(port: server.port, tls: TLSOptions(minimumVersion: .v1_3, tls13CipherSuites: ["TLS_CHACHA20_POLY1305_SHA256"],
                                                                          trustedCertificates: testCABundle))
            _ = try await makeManager().perform(TestRequest<Echo>(provider, "/echo"))
        }
    }

    @Test("Options that cannot work fail before anything is sent, saying why",
          arguments: [
            (TLSOptions(minimumVersion: .v1_3, maximumVersion: .v1_2), "maximum version 1.2 is below their minimum 1.3"),
            (TLSOptions(cipherSuites: ["NOT-A-CIPHER"]), "OpenSSL knows no cipher named \"NOT-A-CIPHER\""),
            (TLSOptions(tls13CipherSuites: ["TLS_AES_512_GCM_SHA999"]), "no TLS 1.3 cipher suite named"),
            (TLSOptions(cipherSuites: ["ECDHE-ECDSA-AES256-GCM-SHA384:HIGH"]), "not a single OpenSSL name"),
            (TLSOptions(cipherSuites: ["bad\nname"]), "not a single OpenSSL name"),
            (TLSOptions(trustedCertificates: URL(fileURLWithPath: "/nonexistent/ca.pem")), "cannot be read"),
          ])
    func badOptionsAreRefused(options: TLSOptions, reason: String) async throws {
        try await withLegitServer([]) { server in
            let provider = TLSProvider(port: server.port, tls: options)
            let error = await networkError { try await makeManager().perform(TestRequest<Echo>(provider, "/echo")) }
            guard case .invalidRequest = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(error?.errorDescription?.contains(reason) == true, "\(error?.errorDescription ?? "")")
            #expect(!(error?.errorDescription?.contains("\n") ?? true))
            #expect(server.recordedBytes().isEmpty)
        }
    }

    @Test("The provider's CA is for its origin only: a redirect to another origin is verified with the manager's store")
    func optionsStayAtTheOrigin() async throws {
        try await withLegitServer([]) { other in
            try await withLegitServer([]) { server in
                let provider = TLSProvider(port: server.port, tls: TLSOptions(trustedCertificates: testCABundle))
                let net = makeManager()
                _ = try await net.perform(TestRequest<Echo>(provider, "/echo"))
                let target = "https://localhost:\(other.port)/echo"
                let error = await networkError {
                    try await net.perform(TestRequest<Echo>(provider, "/redirect-to", params: ["url": target, "status": 307]))
                }
                guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
                #expect(other.recordedBytes().isEmpty)
            }
        }
    }

    @Test("The manager's pins hold on top of the provider's CA: the right key passes, another key of the same CA is refused")
    func pinsCombineWithTheProvidersCA() async throws {
        let net = makeManager()
        try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "localhost.pem")])], isEnabled: true)
        let tls = TLSOptions(minimumVersion: .v1_3, trustedCertificates: testCABundle)
        try await withLegitServer { server in
            _ = try await net.perform(TestRequest<Echo>(TLSProvider(port: server.port, tls: tls), "/echo"))
        }
        try await withInterceptor { server in
            let error = await networkError { try await net.perform(TestRequest<Echo>(TLSProvider(port: server.port, tls: tls), "/echo")) }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(error?.errorDescription?.contains("matches its pins") == true, "\(error?.errorDescription ?? "")")
        }
    }

    @Test("Copy-as-curl carries the options, and curl replaying it reaches a TLS 1.3-only server")
    func copyAsCurl() async throws {
        try await withLegitServer(["--tls-min-version", "TLSv1_3"]) { server in
            let provider = TLSProvider(port: server.port, tls: TLSOptions(minimumVersion: .v1_3, maximumVersion: .v1_3,
                                                                          cipherSuites: ["ECDHE-ECDSA-AES256-GCM-SHA384"],
                                                                          tls13CipherSuites: ["TLS_AES_256_GCM_SHA384"],
                                                                          trustedCertificates: testCABundle))
            let command = try await makeManager().curlCommand(for: TestRequest<Echo>(provider, "/echo"))
            for flag in ["--tlsv1.3", "--tls-max 1.3", "--ciphers 'ECDHE-ECDSA-AES256-GCM-SHA384'",
                         "--tls13-ciphers 'TLS_AES_256_GCM_SHA384'", "--cacert '\(testCABundle.path)'"] {
                #expect(command.contains(flag), "\(flag) in \(command)")
            }
            #expect(!command.contains("--tlsv1.2"))
            let (status, output) = try await runShell(command)
            #expect(status == 0)
            #expect(String(decoding: output, as: UTF8.self).contains("\"path\": \"/echo\""))
        }
    }
}
