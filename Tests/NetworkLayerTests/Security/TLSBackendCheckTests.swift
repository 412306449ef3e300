import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Pins are checked only when libcurl runs on the very OpenSSL NetworkLayer was linked against;
/// otherwise a pinned request fails closed, with nothing sent.
@Suite("TLS backend check", .sharing)
struct TLSBackendCheckTests {
    /// OpenSSL 3.0.11 as `OpenSSL_version_num()` writes it: 0xMNN00PP0.
    static let openSSL3011: UInt64 = 0x3000_00B0
    /// OpenSSL 1.1.1w: 0xMNNFFPPS.
    static let openSSL111w: UInt64 = 0x1010_117F

    @Test("Version numbers are read in both of OpenSSL's layouts")
    func versionLayouts() {
        #expect(TLSBackendCheck.Version(openSSLNumber: Self.openSSL3011).description == "3.0.11")
        #expect(TLSBackendCheck.Version(openSSLNumber: Self.openSSL111w).description == "1.1.1")
        #expect(TLSBackendCheck.Version(text: "3.0.19")?.description == "3.0.19")
        #expect(TLSBackendCheck.Version(text: "1.1.1w")?.description == "1.1.1")
        #expect(TLSBackendCheck.Version(text: "3.2.0-fips")?.description == "3.2.0")
        for broken in ["", "3", "x.y.z", ".0.1", "99999999999999999999.0"] {
            #expect(TLSBackendCheck.Version(text: Substring(broken)) == nil, "\(broken)")
        }
    }

    @Test("The same OpenSSL on both sides passes")
    func sameOpenSSLPasses() {
        #expect(TLSBackendCheck.problem(curlTLS: "OpenSSL/3.0.11", linkedRuntime: Self.openSSL3011, linkedHeader: 0x3000_0020) == nil)
        #expect(TLSBackendCheck.problem(curlTLS: "OpenSSL/1.1.1w", linkedRuntime: Self.openSSL111w, linkedHeader: 0x1010_107F) == nil)
    }

    @Test("Another TLS library, several backends, or another OpenSSL version is refused with the reason",
          arguments: [("GnuTLS/3.7.9", "is not OpenSSL"), ("wolfSSL/5.6.3", "is not OpenSSL"),
                      ("LibreSSL/3.8.2", "is not OpenSSL"), ("BoringSSL", "is not OpenSSL"), ("none", "is not OpenSSL"),
                      ("(OpenSSL/3.0.11) GnuTLS/3.7.9", "is not OpenSSL"), ("OpenSSL/", "is not OpenSSL"),
                      ("OpenSSL/1.1.1w", "runs on OpenSSL 1.1.1"), ("OpenSSL/3.1.4", "runs on OpenSSL 3.1.4"),
                      ("OpenSSL/3.0.12", "runs on OpenSSL 3.0.12")])
    func foreignBackendsAreRefused(curlTLS: String, mentions: String) {
        let problem = TLSBackendCheck.problem(curlTLS: curlTLS, linkedRuntime: Self.openSSL3011, linkedHeader: Self.openSSL3011)
        #expect(problem?.contains(mentions) == true, "\(curlTLS): \(problem ?? "accepted")")
    }

    @Test("A library built against one OpenSSL major version and run on another is refused")
    func buildAndRuntimeMajorsDiffer() {
        let problem = TLSBackendCheck.problem(curlTLS: "OpenSSL/3.0.11", linkedRuntime: Self.openSSL3011, linkedHeader: Self.openSSL111w)
        #expect(problem?.contains("built against OpenSSL 1.1.1") == true, "\(problem ?? "accepted")")
    }

    @Test("On this machine libcurl and NetworkLayer share one OpenSSL, so pins are checked")
    func thisProcessPasses() {
        #expect(CurlEngine.tlsBackend.hasPrefix("OpenSSL/"))
        #expect(TLSBackendCheck.problem == nil, "\(TLSBackendCheck.problem ?? "")")
    }

    @Test("When the check fails, a pinned request is refused before any byte is sent; an unpinned host still works")
    func failsClosed() async throws {
        try await withLegitServer { server in
            let net = makeTLSManager()
            net.settings.withLock { $0.tlsBackendProblem = "this libcurl's TLS backend (GnuTLS/3.7.9) is not OpenSSL" }
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "localhost.pem")])],
                                     isEnabled: true)
            let error = await networkError {
                try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/secret-path"))
            }
            guard case .invalidCertificate(let context) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(context.reason?.contains("localhost is pinned, but this libcurl's TLS backend (GnuTLS/3.7.9) is not OpenSSL") == true,
                    "\(context.reason ?? "")")
            #expect(server.recordedBytes().isEmpty, "the server received \(server.recordedBytes().count) bytes")
            // 127.0.0.1 is not covered by the rule: verified normally, without pins.
            let echo = try await net.perform(TestRequest<Echo>(server.provider(host: "127.0.0.1"), "/echo"))
            #expect(echo.path == "/echo")
        }
    }
}
