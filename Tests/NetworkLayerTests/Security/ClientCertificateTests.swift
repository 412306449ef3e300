import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Client certificates (mutual TLS) against a server that requires one (Python's ssl with
/// CERT_REQUIRED, certificates made by trustme): accepted with the right one in every form,
/// refused without one and with one of another CA; a bad file, password or key is a precise
/// `.invalidCertificate` before any connection; the password is never shown; a connection made
/// with one certificate never serves a request with another, or none.
@Suite("Client certificates (mutual TLS)", .sharing)
struct ClientCertificateTests {
    /// Every form a right certificate can take, by name.
    static func forms(_ files: ClientCertificateFiles) -> [(String, ClientCertificate)] {
        [
            ("PEM", files.clientA),
            ("PEM, PKCS#8 encrypted key", .pem(certificate: files.url("client.pem"), privateKey: files.url("client-pkcs8-encrypted.key"),
                                               password: files.password)),
            ("PEM, traditional encrypted key", .pem(certificate: files.url("client.pem"),
                                                    privateKey: files.url("client-traditional-encrypted.key"), password: files.password)),
            ("PEM, certificate and key in one file", .pem(certificate: files.url("client-combined.pem"),
                                                          privateKey: files.url("client-combined.pem"))),
            ("PKCS#12 with a password", .pkcs12(files.url("client.p12"), password: files.password)),
            ("PKCS#12 without a password", .pkcs12(files.url("client-nopass.p12"))),
        ]
    }

    @Test("The server accepts the right certificate as PEM, PEM with an encrypted key (PKCS#8 and traditional), one file, and PKCS#12")
    func acceptedInEveryForm() async throws {
        let files = try await ClientCertificateFiles.shared()
        try await withMTLSServer(files) { server in
            let net = makeMTLSManager(files)
            for (name, certificate) in Self.forms(files) {
                let whoami = try await net.perform(TestRequest<WhoAmI>(server.provider(certificate), "/whoami"))
                #expect(whoami.subject == "client-a", "\(name)")
            }
        }
    }


    @Test("The server refuses a request without a certificate, and one with a certificate of another CA: .invalidCertificate saying so")
    func refusedWithoutOneAndWithAnotherCA() async throws {
        let files = try await ClientCertificateFiles.shared()
        try await withMTLSServer(files) { server in
            let net = makeMTLSManager(files)
            let none = await networkError { try await net.perform(TestRequest<WhoAmI>(server.provider(nil), "/whoami")) }
            guard case .invalidCertificate(let context) = none else { Issue.record("got \(String(describing: none))"); return }
            #expect(context.reason?.contains("requires a client certificate, and this request presented none") == true, "\(context)")
            #expect(none?.errorDescription?.hasPrefix("The client certificate could not be used") == true)
            #expect(none?.recoverySuggestion?.contains("clientCertificate") == true)

            let rogue = ClientCertificate.pem(certificate: files.url("rogue.pem"), privateKey: files.url("rogue.key"))
            let refused = await networkError { try await net.perform(TestRequest<WhoAmI>(server.provider(rogue), "/whoami")) }
            guard case .invalidCertificate(let rogueContext) = refused else { Issue.record("got \(String(describing: refused))"); return }
            #expect(rogueContext.reason?.contains("refused the client certificate: it does not trust the CA") == true, "\(rogueContext)")

            let events = await server.eventLines { $0.contains("CERTIFICATE_VERIFY_FAILED") }
            #expect(events.contains { $0.hasPrefix("refused") && $0.contains("PEER_DID_NOT_RETURN_A_CERTIFICATE") }, "\(events)")
            #expect(events.contains { $0.hasPrefix("refused") && $0.contains("CERTIFICATE_VERIFY_FAILED") }, "\(events)")
            #expect(!events.contains { $0.hasPrefix("handshake") }, "\(events)")
        }
    }

    @Test("A server that closes at once after refusing the certificate gives .invalidCertificate saying it may have refused it, never a retry")
    func refusalLostToAResetStillNamesTheCertificate() async throws {
        let files = try await ClientCertificateFiles.shared()
        try await withMTLSServer(files, closeAtOnce: true) { server in
            let rogue = ClientCertificate.pem(certificate: files.url("rogue.pem"), privateKey: files.url("rogue.key"))
            for _ in 0..<5 {
                let error = await networkError { try await makeMTLSManager(files).perform(TestRequest<WhoAmI>(server.provider(rogue), "/whoami")) }
                // The alert read ("refused"), or lost to the reset ("may have refused"): the certificate either way.
                guard case .invalidCertificate(let context)? = error else { Issue.record("got \(String(describing: error))"); continue }
                let reason = context.reason ?? ""
                #expect(reason.contains("refused the client certificate") || reason.contains("may have refused the client certificate"),
                        "\(reason)")
                #expect(error?.errorDescription?.hasPrefix("The client certificate could not be used") == true)
                let suggestion = error?.recoverySuggestion ?? ""
                #expect(suggestion.contains("trusts the CA") && !suggestion.lowercased().contains("try again"), "\(suggestion)")
            }
            // A retry policy does not send the refused certificate again.
            let before = server.acceptedConnections
            var provider = server.provider(rogue)
            provider.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(10))
            let retried = await networkError { try await makeMTLSManager(files).perform(TestRequest<WhoAmI>(provider, "/whoami")) }
            #expect(retried?.code == "invalidCertificate")
            // Every attempt was accepted before its error arrived; the server writes its events a moment later.
            try await Task.sleep(for: .milliseconds(300))
            #expect(server.acceptedConnections == before + 1, "\(server.eventLines())")
        }
    }

    /// A certificate that cannot be used, and what its error must say.
    struct BadCertificate: Sendable, CustomTestStringConvertible {
        let name: String
        let make: @Sendable (ClientCertificateFiles, URL) throws -> ClientCertificate
        let says: [String]
        var testDescription: String { name }
    }

    static let wrongPassword = "wrong-canary-pass-77"

    static let badCertificates: [BadCertificate] = [
        BadCertificate(name: "a wrong password for a PKCS#8 encrypted key", make: { files, _ in
            .pem(certificate: files.url("client.pem"), privateKey: files.url("client-pkcs8-encrypted.key"), password: wrongPassword)
        }, says: ["client-pkcs8-encrypted.key could not be decrypted: the password is wrong"]),
        BadCertificate(name: "a wrong password for a traditional encrypted key", make: { files, _ in
            .pem(certificate: files.url("client.pem"), privateKey: files.url("client-traditional-encrypted.key"), password: wrongPassword)
        }, says: ["client-traditional-encrypted.key could not be decrypted: the password is wrong"]),
        BadCertificate(name: "no password for an encrypted key", make: { files, _ in
            .pem(certificate: files.url("client.pem"), privateKey: files.url("client-pkcs8-encrypted.key"))
        }, says: ["client-pkcs8-encrypted.key is encrypted, and no password was given"]),
        BadCertificate(name: "a key of no certificate", make: { files, _ in
            .pem(certificate: files.url("client.pem"), privateKey: files.url("other.key"))
        }, says: ["the private key", "other.key does not belong to the client certificate", "client.pem"]),
        BadCertificate(name: "another client's key", make: { files, _ in
            .pem(certificate: files.url("client.pem"), privateKey: files.url("client-b.key"))
        }, says: ["client-b.key does not belong to the client certificate"]),
        BadCertificate(name: "a missing certificate file", make: { files, _ in
            .pem(certificate: files.url("missing.pem"), privateKey: files.url("client.key"))
        }, says: ["the client certificate file", "missing.pem could not be read (No such file or directory)"]),
        BadCertificate(name: "a missing key file", make: { files, _ in
            .pem(certificate: files.url("client.pem"), privateKey: files.url("missing.key"))
        }, says: ["the client certificate's private key file", "missing.key could not be read (No such file or directory)"]),
        BadCertificate(name: "a directory for a certificate", make: { files, _ in
            .pem(certificate: files.directory, privateKey: files.url("client.key"))
        }, says: ["is not a regular file"]),
        BadCertificate(name: "an empty certificate file", make: { _, scratch in
            let url = scratch.appendingPathComponent("empty.pem")
            try Data().write(to: url)
            return .pem(certificate: url, privateKey: url)
        }, says: ["empty.pem is empty"]),
        BadCertificate(name: "a file without a certificate", make: { files, _ in
            .pem(certificate: files.url("garbage.pem"), privateKey: files.url("client.key"))
        }, says: ["garbage.pem holds no PEM certificate"]),
        BadCertificate(name: "a certificate for a key", make: { files, _ in
            .pem(certificate: files.url("client.pem"), privateKey: files.url("client.pem"))
        }, says: ["client.pem holds no PEM private key"]),
        BadCertificate(name: "a certificate file larger than 1 MB", make: { _, scratch in
            let url = scratch.appendingPathComponent("huge.pem")
            try Data(repeating: 0x41, count: (1 << 20) + 1).write(to: url)
            return .pem(certificate: url, privateKey: url)
        }, says: ["huge.pem is larger than 1024 KB"]),
        BadCertificate(name: "a password with a NUL", make: { files, _ in
            .pem(certificate: files.url("client.pem"), privateKey: files.url("client-pkcs8-encrypted.key"), password: "a\u{0}b")
        }, says: ["password holds a NUL character"]),
        BadCertificate(name: "a wrong PKCS#12 password", make: { files, _ in
            .pkcs12(files.url("client.p12"), password: wrongPassword)
        }, says: ["client.p12 could not be opened: the password is wrong"]),
        BadCertificate(name: "no PKCS#12 password", make: { files, _ in
            .pkcs12(files.url("client.p12"))
        }, says: ["client.p12 needs a password, and none was given"]),
        BadCertificate(name: "a PEM file as PKCS#12", make: { files, _ in
            .pkcs12(files.url("client.pem"), password: files.password)
        }, says: ["client.pem is not a PKCS#12 archive"]),
        BadCertificate(name: "a missing PKCS#12 file", make: { files, _ in
            .pkcs12(files.url("missing.p12"))
        }, says: ["the client certificate's PKCS#12 file", "missing.p12 could not be read"]),
    ]

    @Test("A bad file, password or key is .invalidCertificate saying which, before any connection: the server sees none",
          arguments: badCertificates)
    func badCertificateFailsBeforeAnyConnection(bad: BadCertificate) async throws {
        let files = try await ClientCertificateFiles.shared()
        let scratch = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let certificate = try bad.make(files, scratch)
        try await withMTLSServer(files) { server in
            let log = LogCollector()
            let net = makeMTLSManager(files, log: log)
            let error = await networkError {
                try await net.perform(TestRequest<WhoAmI>(server.provider(certificate), "/whoami", method: .post, params: ["a": 1]))
            }
            guard case .invalidCertificate(let context) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(context.concernsClientCertificate)
            for text in bad.says { #expect(context.reason?.contains(text) == true, "\(context.reason ?? "") does not say \(text)") }
            #expect(context.reason?.hasSuffix("; nothing was sent") == true)
            #expect(context.request == "POST https://127.0.0.1:\(server.port)/whoami")
            let description = error?.errorDescription ?? ""
            #expect(description.hasPrefix("The client certificate could not be used: "), "\(description)")
            for secret in [Self.wrongPassword, files.password] {
                #expect(!description.contains(secret) && !log.text.contains(secret), "the password shows")
            }
            // Give a connection every chance to show: the server writes each accept as it happens.
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.acceptedConnections == 0, "\(server.eventLines())")
        }
    }

    @Test("The password never shows: not in the log, the entries, an error, copy-as-curl (even unredacted) or a description")
    func passwordNeverShows() async throws {
        let files = try await ClientCertificateFiles.shared()
        try await withMTLSServer(files) { server in
            let log = LogCollector()
            let entries = LogEntryCollector()
            let net = makeMTLSManager(files, log: log, entries: entries)
            let certificate = ClientCertificate.pem(certificate: files.url("client.pem"), privateKey: files.url("client-pkcs8-encrypted.key"),
                                                    password: files.password)
            _ = try await net.perform(TestRequest<WhoAmI>(server.provider(certificate), "/whoami"))
            _ = await networkError { try await net.perform(TestRequest<WhoAmI>(server.provider(certificate), "/missing")) }
            let redacted = try await net.curlCommand(for: TestRequest<WhoAmI>(server.provider(certificate), "/whoami"))
            let unredacted = try await net.curlCommand(for: TestRequest<WhoAmI>(server.provider(certificate), "/whoami"),
                                                       redactingSecrets: false)
            var dumped = ""
            dump(certificate, to: &dumped)
            let texts = [log.text, redacted, unredacted, String(describing: certificate), String(reflecting: certificate), dumped,
                         "\(server.provider(certificate))"] + entries.texts
            for text in texts { #expect(!text.contains(files.password), "\(text)") }
            for command in [redacted, unredacted] {
                #expect(command.contains("--cert '\(files.url("client.pem").path)' --cert-type PEM --key '\(files.url("client-pkcs8-encrypted.key").path)' --pass '<redacted>'"),
                        "\(command)")
            }
            #expect(String(describing: certificate).contains("password <redacted>"))
            #expect(log.text.contains("--pass '<redacted>'"), "the logged command line names the files too")
        }
    }

    @Test("Copy-as-curl names the files, and the command, its password filled in, is accepted by the server", arguments: [
        "PEM, PKCS#8 encrypted key", "PKCS#12 with a password", "PEM",
    ])
    func copyAsCurlReplays(form: String) async throws {
        let files = try await ClientCertificateFiles.shared()
        let certificate = try #require(Self.forms(files).first { $0.0 == form }?.1)
        try await withMTLSServer(files) { server in
            let command = try await makeMTLSManager(files).curlCommand(for: TestRequest<WhoAmI>(server.provider(certificate), "/whoami"),
                                                                        redactingSecrets: false)
            #expect(command.contains("--cert '"), "\(command)")
            let replay = command.replacingOccurrences(of: "--pass '<redacted>'", with: "--pass " + CurlCommand.quote(files.password))
            let (status, output) = try await runShell(curlCommand(replay, inserting: "--silent --show-error"))
            #expect(status == 0, "\(replay)")
            let whoami = try JSONDecoder().decode(WhoAmI.self, from: output)
            #expect(whoami.subject == "client-a")
        }
    }

    @Test("A connection made with one certificate never serves a request with another or none, also from a pooled handle; the same certificate reuses its own")
    func connectionsAreNeverSharedAcrossCertificates() async throws {
        let files = try await ClientCertificateFiles.shared()
        try await withMTLSServer(files, verify: "optional") { server in
            let net = makeMTLSManager(files)
            let sequence: [(String?, ClientCertificate?)] = [("client-a", files.clientA), (nil, nil), ("client-b", files.clientB),
                                                             ("client-a", files.clientA), (nil, nil), ("client-b", files.clientB),
                                                             ("client-a", files.clientA)]
            var connections: [String: Set<Int>] = [:]
            for (expected, certificate) in sequence {
                let whoami = try await net.perform(TestRequest<WhoAmI>(server.provider(certificate), "/whoami"))
                #expect(whoami.subject == expected, "a request with \(expected ?? "no certificate") was seen as \(whoami.subject ?? "none")")
                connections[expected ?? "none", default: []].insert(whoami.connection)
            }
            // Each certificate (and none) kept to its own connection, and reused it.
            #expect(connections.values.allSatisfy { $0.count == 1 }, "\(connections)")
            #expect(Set(connections.values.flatMap { $0 }).count == 3, "\(connections)")
        }
    }

    @Test("Requests with different certificates and none at once each present their own")
    func concurrentRequestsPresentTheirOwn() async throws {
        let files = try await ClientCertificateFiles.shared()
        try await withMTLSServer(files, verify: "optional") { server in
            let net = makeMTLSManager(files)
            let choices: [(String?, ClientCertificate?)] = [("client-a", files.clientA), (nil, nil), ("client-b", files.clientB)]
            try await withThrowingTaskGroup(of: (String?, String?).self) { group in
                for index in 0..<30 {
                    let (expected, certificate) = choices[index % 3]
                    let provider = server.provider(certificate)
                    group.addTask { (expected, try await net.perform(TestRequest<WhoAmI>(provider, "/whoami")).subject) }
                }
                for try await (expected, seen) in group { #expect(seen == expected) }
            }
        }
    }

    @Test("Works with pinning and a custom CA: pins of the server's key pass, other pins refuse before the certificate is sent")
    func worksWithPinning() async throws {
        let files = try await ClientCertificateFiles.shared()
        try await withMTLSServer(files) { server in
            let net = makeMTLSManager(files)
            net.certificatesDirectory = files.directory
            try net.configurePinningWith(certificates: [CertificateModel(filename: "server", fileExtension: .pem)], isEnabled: true)
            let whoami = try await net.perform(TestRequest<WhoAmI>(server.provider(files.clientA), "/whoami"))
            #expect(whoami.subject == "client-a")

            net.certificatesDirectory = certificatesDirectory
            try net.configurePinningWith(certificates: [CertificateModel(filename: "unrelated", fileExtension: .pem)], isEnabled: true)
            let error = await networkError { try await net.perform(TestRequest<WhoAmI>(server.provider(files.clientA), "/whoami")) }
            guard case .invalidCertificate(let context) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(!context.concernsClientCertificate)
            #expect(context.reason?.contains("matches its pins") == true, "\(context)")
        }
    }

    @Test("A redirect within the origin keeps the certificate; one to another origin goes without it")
    func redirectToAnotherOriginGoesWithoutTheCertificate() async throws {
        let files = try await ClientCertificateFiles.shared()
        try await withMTLSServer(files, verify: "optional") { origin in
            try await withMTLSServer(files, verify: "optional") { other in
                let net = makeMTLSManager(files)
                let same = try await net.perform(TestRequest<WhoAmI>(origin.provider(files.clientA), "/redirect", params: ["to": "/whoami"]))
                #expect(same.subject == "client-a")
                let elsewhere = try await net.perform(TestRequest<WhoAmI>(origin.provider(files.clientA), "/redirect",
                                                                         params: ["to": "https://127.0.0.1:\(other.port)/whoami"]))
                #expect(elsewhere.subject == nil, "the other origin was shown the certificate")
            }
        }
    }

    @Test("A certificate file replaced at the same path is read again: the next request presents the new one")
    func replacedFilesAreReadAgain() async throws {
        let files = try await ClientCertificateFiles.shared()
        let scratch = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let certificate = scratch.appendingPathComponent("current.pem")
        let key = scratch.appendingPathComponent("current.key")
        try FileManager.default.copyItem(at: files.url("client.pem"), to: certificate)
        try FileManager.default.copyItem(at: files.url("client.key"), to: key)
        try await withMTLSServer(files) { server in
            let net = makeMTLSManager(files)
            let provider = server.provider(.pem(certificate: certificate, privateKey: key))
            #expect(try await net.perform(TestRequest<WhoAmI>(provider, "/whoami")).subject == "client-a")
            try Data(contentsOf: files.url("client-b.pem")).write(to: certificate)
            try Data(contentsOf: files.url("client-b.key")).write(to: key)
            #expect(try await net.perform(TestRequest<WhoAmI>(provider, "/whoami")).subject == "client-b")
        }
    }
}
