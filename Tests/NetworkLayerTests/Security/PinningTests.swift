import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

@Suite("Certificate pinning", .sharing)
struct PinningTests {
    static let fileForms: [CertificateModel] = [
        CertificateModel(filename: "Cert001", fileExtension: .der),
        CertificateModel(filename: "Cert002", fileExtension: .crt),
        CertificateModel(filename: "Cert003", fileExtension: .cer),
        CertificateModel(filename: "Cert004", fileExtension: .pem),
        CertificateModel(filename: "Cert005", fileExtension: .other(fileExtension: "certificate")),
    ]

    @Test("The leaf's pin, from a certificate file of every form, is accepted", arguments: fileForms)
    func leafPinFromEveryFileFormIsAccepted(certificate: CertificateModel) async throws {
        try await withLegitServer { server in
            let net = makeTLSManager()
            try net.configurePinningWith(certificates: [certificate], isEnabled: true)
            let echo = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
            #expect(echo.path == "/echo")
        }
    }

    @Test("A pinned CA in the chain, intermediate or root, is accepted",
          arguments: ["TestIntermediateCA.pem", "TestRootCA.pem"])
    func pinnedCAInTheChainIsAccepted(file: String) async throws {
        try await withLegitServer { server in
            let net = makeTLSManager()
            try net.configurePinning([PinningRule(publicKeyHashes: [try pin(of: file)])], isEnabled: true)
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
        }
    }

    @Test("A set of pins is accepted when one of them matches")
    func aSetOfWrongAndRightPinsIsAccepted() async throws {
        try await withLegitServer { server in
            let net = makeTLSManager()
            try net.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "unrelated.pem"), try pin(of: "localhost.pem")])],
                                     isEnabled: true)
            _ = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
        }
    }

    @Test("A wrong pin is refused before any request byte is sent, and the error names the server's real pins")
    func wrongPinIsRefusedBeforeAnyRequestByteIsSent() async throws {
        try await withLegitServer { server in
            let net = makeTLSManager()
            try net.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "unrelated.pem")])], isEnabled: true)
            let error = await networkError {
                try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/secret-path",
                                                        method: .post, params: ["secret": "body"]))
            }
            guard case .invalidCertificate(let context) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(server.recordedBytes().isEmpty, "the server received \(server.recordedBytes().count) bytes")
            // The description names the host and the pins the server really has, to fix a rotated pin fast.
            let description = error?.errorDescription ?? ""
            #expect(description.contains("localhost"))
            #expect(description.contains(try pin(of: "localhost.pem")))
            #expect(description.contains(try pin(of: "TestIntermediateCA.pem")))
            #expect((context.underlyingError as? CurlError)?.code == 60)
        }
    }

    @Test("A trusted interceptor is accepted without pinning and refused with it")
    func interceptorIsAcceptedWithoutPinningAndRefusedWithIt() async throws {
        try await withInterceptor { interceptor in
            let unpinned = makeTLSManager()
            _ = try await unpinned.perform(TestRequest<Echo>(interceptor.provider(host: "localhost"), "/echo"))
            #expect(!interceptor.recordedBytes().isEmpty, "without pins the interceptor is trusted")
        }
        try await withInterceptor { interceptor in
            let pinned = makeTLSManager()
            try pinned.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "TestIntermediateCA.pem")])], isEnabled: true)
            let error = await networkError { try await pinned.perform(TestRequest<Echo>(interceptor.provider(host: "localhost"), "/echo")) }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(interceptor.recordedBytes().isEmpty)
        }
    }

    @Test("Disabled pinning lets the interceptor through")
    func disabledPinningLetsTheInterceptorThrough() async throws {
        try await withInterceptor { interceptor in
            let net = makeTLSManager()
            try net.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "TestIntermediateCA.pem")])], isEnabled: false)
            _ = try await net.perform(TestRequest<Echo>(interceptor.provider(), "/echo"))
        }
    }

    @Test("configurePinningWith(certificates: [], isEnabled: false) turns pinning off: the interceptor refused before gets through")
    func emptyDisabledPinningTurnsPinningOff() async throws {
        try await withInterceptor { interceptor in
            let net = makeTLSManager()
            try net.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "TestIntermediateCA.pem")])], isEnabled: true)
            let refused = await networkError { try await net.perform(TestRequest<Echo>(interceptor.provider(host: "localhost"), "/echo")) }
            guard case .invalidCertificate = refused else { Issue.record("got \(String(describing: refused))"); return }

            try net.configurePinningWith(certificates: [], isEnabled: false)
            #expect(net.settings.withLock { $0.pinning } == nil)
            _ = try await net.perform(TestRequest<Echo>(interceptor.provider(host: "localhost"), "/echo"))
            // Rules without pins, not enforced, are off too.
            try net.configurePinning([PinningRule(publicKeyHashes: []), PinningRule(certificates: [])], isEnabled: false)
            #expect(net.settings.withLock { $0.pinning } == nil)
        }
    }

    @Test("isEnabled: true with no pins is refused (it would pin nothing), and the enforced pins stay in force")
    func enabledPinningWithoutPinsFailsClosed() async throws {
        try await withInterceptor { interceptor in
            let net = makeTLSManager()
            try net.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "TestIntermediateCA.pem")])], isEnabled: true)
            for attempt in [{ try net.configurePinningWith(certificates: [], isEnabled: true) },
                            { try net.configurePinning([PinningRule(publicKeyHashes: [])], isEnabled: true) }] {
                #expect {
                    try attempt()
                } throws: { error in
                    guard case .invalidCertificate(let context) = error as? NetworkError else { return false }
                    return context.reason?.contains("has no pins") == true && context.reason?.contains("isEnabled: false") == true
                }
            }
            let error = await networkError { try await net.perform(TestRequest<Echo>(interceptor.provider(host: "localhost"), "/echo")) }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(interceptor.recordedBytes().isEmpty)
        }
    }

    @Test("A redirect to a peer without the pinned key is refused before anything is sent to it")
    func redirectToAPeerWithoutThePinnedKeyIsRefusedBeforeSending() async throws {
        try await withLegitServer { legit in
            try await withInterceptor { interceptor in
                let net = makeTLSManager()
                try net.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "TestIntermediateCA.pem")])], isEnabled: true)
                let target = "https://127.0.0.1:\(interceptor.port)/echo"
                let error = await networkError {
                    try await net.perform(TestRequest<Echo>(legit.provider(host: "localhost"), "/redirect-to",
                                                            params: ["url": target]))
                }
                guard case .invalidCertificate(let context) = error else { Issue.record("got \(String(describing: error))"); return }
                #expect(!legit.recordedBytes().isEmpty, "the pinned origin was contacted")
                #expect(interceptor.recordedBytes().isEmpty, "the redirect target received nothing")
                #expect(context.reason?.contains("127.0.0.1") == true)
            }
        }
    }

    @Test("Host patterns pin one backend and not another")
    func hostPatternsPinOneBackendAndNotAnother() async throws {
        try await withLegitServer { server in
            let net = makeTLSManager()
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "unrelated.pem")])],
                                     isEnabled: true)
            // localhost is pinned (to a key the server does not have): refused.
            let error = await networkError { try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo")) }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            // 127.0.0.1 is not covered: verified normally, and accepted.
            _ = try await net.perform(TestRequest<Echo>(server.provider(host: "127.0.0.1"), "/echo"))
        }
    }

    @Test("Host patterns match exact names, one label with *. and any number with **.")
    func hostPatternMatching() {
        #expect(PinningConfiguration.matches(pattern: "api.example.com", host: "api.example.com"))
        #expect(!PinningConfiguration.matches(pattern: "api.example.com", host: "www.example.com"))
        #expect(PinningConfiguration.matches(pattern: "*.example.com", host: "a.example.com"))
        #expect(!PinningConfiguration.matches(pattern: "*.example.com", host: "example.com"))
        #expect(!PinningConfiguration.matches(pattern: "*.example.com", host: "a.b.example.com"))
        #expect(!PinningConfiguration.matches(pattern: "*.example.com", host: "badexample.com"))
        #expect(PinningConfiguration.matches(pattern: "**.example.com", host: "example.com"))
        #expect(PinningConfiguration.matches(pattern: "**.example.com", host: "a.b.example.com"))
        #expect(!PinningConfiguration.matches(pattern: "**.example.com", host: "notexample.com"))
    }

    @Test("Pinning does not rescue a certificate that fails verification",
          arguments: [("wronghost-chain.pem", "wronghost.key", "TestIntermediateCA.pem", "host"),
                      ("expired-chain.pem", "expired.key", "TestIntermediateCA.pem", "expired"),
                      ("unknownca-chain.pem", "unknownca-leaf.key", "UnknownCA.pem", "self-signed certificate in certificate chain"),
                      ("selfsigned.pem", "selfsigned.key", "selfsigned.pem", "self-signed")])
    func pinningDoesNotRescueABadCertificate(chain: String, key: String, pinned: String, why: String) async throws {
        try await withTLSServer(chain, key: key) { server in
            let net = makeTLSManager()
            try net.configurePinning([PinningRule(publicKeyHashes: [try pin(of: pinned)])], isEnabled: true)
            let error = await networkError { try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo")) }
            guard case .invalidCertificate = error else { Issue.record("\(chain): got \(String(describing: error))"); return }
            #expect(server.recordedBytes().isEmpty)
            #expect(error?.errorDescription?.localizedCaseInsensitiveContains(why) == true, "\(error?.errorDescription ?? "")")
        }
    }

    @Test("Without the custom CA bundle the test CA is not trusted")
    func withoutTheCustomBundleTheTestCAIsNotTrusted() async throws {
        try await withLegitServer { server in
            let error = await networkError { try await makeManager().perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo")) }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(server.recordedBytes().isEmpty)
        }
    }

    @Test("A server offering only TLS 1.1 is refused")
    func serverOfferingOnlyTLS11IsRefused() async throws {
        try await withTLSServer("localhost-chain.pem", key: "localhost.key", extra: ["--tls-max-version", "TLSv1_1"]) { server in
            let error = await networkError { try await makeTLSManager().perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo")) }
            switch error {
            case .transport?, .invalidCertificate?: break
            default: Issue.record("got \(String(describing: error))")
            }
            #expect(server.recordedBytes().isEmpty)
        }
    }

    @Test("Connections made under an earlier pinning configuration are not reused")
    func connectionsFromAnEarlierConfigurationAreNotReused() async throws {
        try await withInterceptor { interceptor in
            let net = makeTLSManager()
            // Pinned to a CA the interceptor's chain does contain (the root): allowed, connection cached.
            try net.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "TestRootCA.pem")])], isEnabled: true)
            _ = try await net.perform(TestRequest<Echo>(interceptor.provider(host: "localhost"), "/echo"))
            // Unpinned, a connection lands in the ordinary cache too.
            try net.configurePinning([], isEnabled: true)
            _ = try await net.perform(TestRequest<Echo>(interceptor.provider(host: "localhost"), "/echo"))
            let before = interceptor.recordedBytes().count

            // New pins the interceptor does not satisfy: a cached connection must not serve the request.
            try net.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "TestIntermediateCA.pem")])], isEnabled: true)
            let error = await networkError { try await net.perform(TestRequest<Echo>(interceptor.provider(host: "localhost"), "/echo")) }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(interceptor.recordedBytes().count == before, "no byte of the refused request reached the interceptor")
        }
    }

    @Test("Missing, garbage or empty certificate files throw at configuration, and the earlier configuration stays",
          arguments: [("Missing", CertificateModel.FileExtension.der, "no such file"),
                      ("garbage", .der, "holds no certificate"),
                      ("empty", .pem, "holds no certificate")])
    func badCertificateFilesThrowAtConfiguration(name: String, fileExtension: CertificateModel.FileExtension, why: String) throws {
        let net = makeTLSManager()
        try net.configurePinningWith(certificates: [PinningTests.fileForms[0]], isEnabled: true)
        #expect {
            try net.configurePinningWith(certificates: [CertificateModel(filename: name, fileExtension: fileExtension)], isEnabled: true)
        } throws: { error in
            guard case .invalidCertificate(let context) = error as? NetworkError else { return false }
            return context.reason?.contains(why) == true && context.reason?.contains(name) == true
        }
        // The earlier configuration stays in force.
        #expect(net.settings.withLock { $0.pinning?.rules.first?.pins.count } == 1)
    }

    @Test("A PEM file with several certificates pins each of them")
    func aPEMFileWithSeveralCertificatesPinsEachOfThem() throws {
        let pins = try PinningConfiguration.pins(of: CertificateModel(filename: "localhost-chain", fileExtension: .pem),
                                                 in: certificatesDirectory)
        #expect(pins.map(\.description) == [try pin(of: "localhost.pem"), try pin(of: "TestIntermediateCA.pem")])
    }

    @Test("Malformed pin strings are rejected",
          arguments: ["sha256/abc", "md5/AAAA", "", "sha256/" + String(repeating: "A", count: 40)])
    func malformedPinStringsAreRejected(text: String) {
        #expect(throws: NetworkError.self) { try PublicKeyPin(text) }
    }

    @Test("A pin whose base64 starts with '/' reads sha256//… and parses back to itself (1 key in 64)")
    func pinStartingWithASlashRoundTrips() throws {
        let pin = PublicKeyPin(digest: Data([0xFC] + [UInt8](repeating: 7, count: 31)))
        #expect(pin.description.hasPrefix("sha256//"))
        #expect(try PublicKeyPin(pin.description) == pin)
    }

    @Test("Pin strings round-trip, also written with a doubled slash")
    func pinStringsRoundTrip() throws {
        let text = try pin(of: "localhost.pem")
        #expect(try PublicKeyPin(text).description == text)
        #expect(try PublicKeyPin(text.replacingOccurrences(of: "sha256/", with: "sha256//")).description == text)
    }
}
