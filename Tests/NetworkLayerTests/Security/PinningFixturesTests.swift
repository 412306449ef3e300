import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The generated certificates (`Tests/Servers/pinning_fixtures.sh`) and the report collector
/// (`Tests/Servers/report_server.py`) work with the library as it is: what the pinning-rollout
/// tests build on.
@Suite("Pinning fixtures", .sharing)
struct PinningFixturesTests {
    @Test("A leaf expiring in ten days and a rotated leaf are trusted without pinning",
          arguments: [("expiring-chain.pem", "expiring.key"), ("rotated-chain.pem", "rotated.key")])
    func expiringAndRotatedLeavesAreTrusted(chain: String, key: String) async throws {
        try await withGeneratedTLSServer(chain, key: key) { server in
            let echo = try await makeTLSManager().perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
            #expect(echo.path == "/echo")
        }
    }

    @Test("The rotated leaf has a pin of its own, which the library computes the same way")
    func rotatedLeafHasAPinOfItsOwn() async throws {
        let rotated = try await generatedPin(of: "rotated.pem")
        #expect(rotated != (try pin(of: "localhost.pem")))
        let rotatedChain = try await generatedPin(of: "rotated-chain.pem")
        #expect(rotatedChain == rotated)
        try await withGeneratedTLSServer("rotated-chain.pem", key: "rotated.key") { server in
            let pinned = makeTLSManager()
            try pinned.configurePinning([PinningRule(publicKeyHashes: [rotated])], isEnabled: true)
            _ = try await pinned.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))

            let pinnedToTheOldLeaf = makeTLSManager()
            try pinnedToTheOldLeaf.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "localhost.pem")])], isEnabled: true)
            let error = await networkError {
                try await pinnedToTheOldLeaf.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
            }
            #expect(error?.caseName == "invalidCertificate", "\(String(describing: error))")
        }
    }

    @Test("The expiring leaf expires within ten days, and began yesterday")
    func expiringLeafExpiresWithinTenDays() async throws {
        let file = try await generatedPinningFixtures().appendingPathComponent("expiring.pem")
        let certificate = try #require(try await offCooperativePool { CertificateValidity(file: file) })
        let now = Date()
        #expect(certificate.notAfter > now.addingTimeInterval(9 * 86_400))
        #expect(certificate.notAfter <= now.addingTimeInterval(10 * 86_400 + 60))
        #expect(certificate.notBefore < now.addingTimeInterval(-86_000))
    }

    /// What the library does today with a chain of 50 certificates and with extensions it cannot
    /// read: a response or a ``NetworkError``, never a crash.
    @Test("A 50-certificate chain and a leaf with a malformed non-critical extension are trusted; an unknown critical extension is an invalid certificate",
          arguments: [("long-chain.pem", "long.key", true), ("malformed-ext-chain.pem", "malformed-ext.key", true),
                      ("critical-unknown-ext-chain.pem", "critical-unknown-ext.key", false)])
    func unusualChainsAreTrustedOrRefusedAsInvalid(chain: String, key: String, trusted: Bool) async throws {
        try await withGeneratedTLSServer(chain, key: key) { server in
            do {
                _ = try await makeTLSManager().perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
                #expect(trusted, "\(chain) was trusted")
            } catch let error as NetworkError {
                #expect(!trusted, "\(chain): \(error)")
                #expect(error.caseName == "invalidCertificate", "\(error)")
            }
        }
    }

    @Test("A certificate whose subjectAltName does not decode gives its key's pin when loaded as a pin file")
    func certificateWithUndecodableSubjectAltNameGivesItsPin() async throws {
        let net = makeTLSManager()
        net.certificatesDirectory = try await generatedPinningFixtures()
        try net.configurePinningWith(certificates: [CertificateModel(filename: "malformed-san", fileExtension: .pem)], isEnabled: true)
        let pins = net.settings.withLock { $0.pinning?.rules.flatMap(\.pins) ?? [] }
        let expected = try PublicKeyPin(try await generatedPin(of: "malformed-san.pem"))
        #expect(pins == [expected])
    }

    @Test("A report POSTed with the library is stored with its body and headers, and counted")
    func reportIsStoredAndCounted() async throws {
        try await withReportServer { server in
            let report: [String: any Sendable] = ["hostname": "localhost", "port": 443, "known-pins": ["pin-sha256=\"abc\""]]
            _ = try await makeManager().perform(BodyRequest<EmptyResponse>(server.provider(), server.endpoint(),
                                                                          body: .json(object: report)))
            #expect(try await server.count() == 1)
            let stored = try #require(try await server.reports().first)
            #expect(stored.method == "POST")
            #expect(stored.path == "/report")
            #expect(stored.body?["hostname"]?.stringValue == "localhost")
            #expect(stored.body?["port"] == 443)
            #expect(stored.header("content-type")?.hasPrefix("application/json") == true, "\(stored.headers)")
            #expect(server.url() == URL(string: "http://127.0.0.1:\(server.port)/report"))
        }
    }

    @Test("A report URI asking for 500 answers 500, and the report still counts")
    func reportURIAskingFor500Answers500() async throws {
        try await withReportServer { server in
            let error = await networkError {
                try await makeManager().perform(BodyRequest<EmptyResponse>(server.provider(), server.endpoint(status: 500),
                                                                          body: .data(Data("not json".utf8), contentType: "text/plain")))
            }
            #expect(error?.statusCode == 500, "\(String(describing: error))")
            let stored = try await server.reports()
            #expect(stored.count == 1)
            #expect(stored.first?.path == "/report?status=500")
            #expect(stored.first?.body == nil)
            #expect(stored.first?.raw == "not json")
        }
    }

    @Test("A report URI that hangs makes a request with a 1 s timeout time out, and the report counts")
    func hangingReportURITimesOut() async throws {
        try await withReportServer { server in
            let started = ContinuousClock.now
            let error = await networkError {
                try await makeManager().perform(BodyRequest<EmptyResponse>(server.provider(), server.endpoint(hang: true),
                                                                          body: .json(object: ["a": 1]), timeout: 1))
            }
            #expect(error?.caseName == "timeOut", "\(String(describing: error))")
            #expect(started.duration(to: .now) < .seconds(5))
            let count = try await server.count()
            #expect(count == 1)
        }
    }
}

/// The validity dates of a PEM certificate file, read by `openssl x509` (which blocks: call it off
/// the cooperative pool).
private struct CertificateValidity: Sendable {
    let notBefore: Date
    let notAfter: Date

    init?(file: URL) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "x509", "-in", file.path, "-noout", "-startdate", "-enddate", "-dateopt", "iso_8601"]
        let output = Pipe()
        process.standardOutput = output
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let dates = text.split(separator: "\n").map { $0.split(separator: "=", maxSplits: 1).last.map(String.init) ?? "" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withSpaceBetweenDateAndTime, .withColonSeparatorInTime]
        guard dates.count == 2, let notBefore = formatter.date(from: String(dates[0].dropLast())),
              let notAfter = formatter.date(from: String(dates[1].dropLast())) else { return nil }
        self.notBefore = notBefore
        self.notAfter = notAfter
    }
}
