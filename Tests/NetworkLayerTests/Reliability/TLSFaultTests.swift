import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

extension Reliability {
    /// A server with a bad certificate or an old protocol: `.invalidCertificate` (or `.transport` for
    /// the protocol) naming the cause, nothing sent, within the timeout, and the manager keeps working.
    ///
    /// The servers are `test_server.py` with the certificates of `Certificates/` (the ones the
    /// pinning suite uses), recording what they receive; the manager trusts the test CA.
    @Suite("TLS faults", .sharedServers(faultModes: [.serve], legitimateTLS: true), .sharing)
    struct TLSFaultTests {
        struct CertificateFault: Sendable, CustomTestStringConvertible {
            let certificate: String
            let key: String
            var extra: [String] = []
            let expectedCase: String
            let curlCodes: Set<Int>
            /// What the description must say (OpenSSL's words, passed on by libcurl).
            let cause: String
            var testDescription: String { extra.isEmpty ? certificate : "\(certificate) \(extra.joined(separator: " "))" }
        }

        static let faults: [CertificateFault] = [
            CertificateFault(certificate: "expired-chain.pem", key: "expired.key", expectedCase: "invalidCertificate",
                             curlCodes: [60], cause: "certificate has expired"),
            CertificateFault(certificate: "wronghost-chain.pem", key: "wronghost.key", expectedCase: "invalidCertificate",
                             curlCodes: [60], cause: "no alternative certificate subject name matches target host name"),
            CertificateFault(certificate: "selfsigned.pem", key: "selfsigned.key", expectedCase: "invalidCertificate",
                             curlCodes: [60], cause: "self-signed certificate"),
            // The chain ends in a root nobody trusts...
            CertificateFault(certificate: "unknownca-chain.pem", key: "unknownca-leaf.key", expectedCase: "invalidCertificate",
                             curlCodes: [60], cause: "self-signed certificate in certificate chain"),
            // ...or the leaf comes alone, and its issuer is unknown.
            CertificateFault(certificate: "unknownca-leaf.pem", key: "unknownca-leaf.key", expectedCase: "invalidCertificate",
                             curlCodes: [60], cause: "unable to get local issuer certificate"),
            // A valid certificate, but only TLS 1.1 on offer: the library asks for 1.2 at least.
            CertificateFault(certificate: "localhost-chain.pem", key: "localhost.key", extra: ["--tls-max-version", "TLSv1_1"],
                             expectedCase: "transport", curlCodes: [35], cause: "TLS handshake failed"),
        ]

        @Test("A bad certificate or TLS 1.1 is refused, saying why, before any byte is sent; the manager keeps working",
              arguments: faults)
        func badCertificate(_ fault: CertificateFault) async throws {
            try await offCooperativePool {
                try TestServer.startTLS(certificate: fault.certificate, key: fault.key, record: true, extra: fault.extra)
            }.whileRunning { server in
                try await Self.check(fault, server: server)
            }
        }

        static func check(_ fault: CertificateFault, server: TestServer) async throws {
            let net = makeTLSManager()
            let provider = server.provider(host: "localhost")
            let timeout = TestTimeout.seconds(1)   // a sanitizer run is slower at the handshake too
            await learnEngineThread(via: try SharedServers.fault(.serve).provider())
            let ((outcome, elapsed), waited) = await withCoreWaits {
                await timedOnOwnExecutor {
                    await FaultOutcome { () throws(NetworkError) in
                        try await net.perform(TestRequest<FaultOK>(provider, "/secret-path", method: .post,
                                                                   params: ["secret": "body"], timeout: timeout))
                    }
                }
            }
            #expect(elapsed < .seconds(timeout) + .milliseconds(250) + waited, "\(elapsed) (waits for a core: \(waited))")
            guard let error = outcome.error else {
                Issue.record("\(fault.certificate): the request succeeded")
                return
            }
            #expect(error.caseName == fault.expectedCase, "\(error)")
            #expect(error.curlCode.map(fault.curlCodes.contains) == true, "\(error)")
            let description = error.errorDescription ?? ""
            #expect(description.contains(fault.cause), "\(description)")
            #expect(description.contains("POST https://localhost:\(server.port)/secret-path"), "\(description)")
            #expect(error.recoverySuggestion?.isEmpty == false)
            // Refused inside the handshake: not a byte of the request reached the server.
            #expect(server.recordedBytes().isEmpty, "the server received \(server.recordedBytes().count) bytes")

            // The same manager still works, over TLS with a good certificate.
            let legit = try SharedServers.legitimateTLS()
            let echo = try await net.perform(TestRequest<Echo>(legit.provider(host: "localhost"), "/echo", timeout: 5))
            #expect(echo.path == "/echo")
        }
    }
}
