import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Collects a manager's pinning reports from the moment it is made.
final class PinningReportCollector: Sendable {
    private let reports = Protected<[PinningReport]>([])
    private let task: Task<Void, Never>

    init(_ net: NetworkManager) {
        let stream = net.pinningMonitor.subscribe()  // subscribed now, not when the task first runs
        let reports = self.reports
        task = Task {
            for await report in stream { reports.withLock { $0.append(report) } }
        }
    }

    deinit { task.cancel() }

    var all: [PinningReport] { reports.withLock { $0 } }

    /// The reports once there are at least `count` (or after 5 s, what there is).
    func wait(for count: Int) async -> [PinningReport] {
        let deadline = ContinuousClock.now + .seconds(5)
        while all.count < count, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        return all
    }
}

@Suite("Pinning rollout: report-only rules, reports, expiry, backup pins, a trust callback", .sharing)
struct PinningRolloutTests {
    /// The legitimate leaf and a key the server does not have: the pins a team shipped before the
    /// server's certificate rotated (to `rotated.pem`: a new key, the same names and intermediate).
    static func shippedPins() throws -> [String] { [try pin(of: "localhost.pem"), try pin(of: "unrelated.pem")] }

    func withRotatedServer<T>(_ body: (TestServer) async throws -> T) async throws -> T {
        try await withGeneratedTLSServer("rotated-chain.pem", key: "rotated.key", body)
    }

    @Test("Report-only: a rotated certificate is let through and reported, with its chain, the pins expected and no request data")
    func reportOnlyLetsARotatedCertificateThroughAndReportsIt() async throws {
        try await withRotatedServer { rotated in
            let log = LogCollector()
            let net = makeTLSManager()
            net.isVerbose = true
            net.logHandler = { log.append($0) }
            let reports = PinningReportCollector(net)
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: try Self.shippedPins(), enforcement: .reportOnly)],
                                     isEnabled: true)
            let echo = try await net.perform(TestRequest<Echo>(rotated.provider(host: "localhost"), "/echo",
                                                               headers: ["Authorization": "Bearer rollout-secret-token"]))
            #expect(echo.path == "/echo")
            let report = try #require(await reports.wait(for: 1).first)
            #expect(report.kind == .mismatch)
            #expect(report.host == "localhost" && report.port == rotated.port)
            #expect(!report.wasEnforced && !report.ruleExpired)
            #expect(report.expectedPins == (try Self.shippedPins()))
            #expect(report.chain.map(\.publicKeyHash) == [try await generatedPin(of: "rotated.pem"), try pin(of: "TestIntermediateCA.pem"),
                                                          try pin(of: "TestRootCA.pem")])
            #expect(report.chain.first?.subject.contains("localhost") == true || report.chain.first?.subject.isEmpty == false)
            #expect(report.chain.allSatisfy { $0.notAfter != nil })
            let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
            #expect(!json.contains("rollout-secret-token") && !json.contains("/echo"), "\(json)")
            #expect(log.text.contains("pin mismatch, not enforced"), "\(log.text)")
            #expect(!log.text.contains("rollout-secret-token"))
        }
    }

    @Test("Enforced: the same rotation is refused before any request byte is sent, and reported as enforced")
    func enforcedRefusesTheRotationAndReportsIt() async throws {
        try await withRotatedServer { rotated in
            let net = makeTLSManager()
            let reports = PinningReportCollector(net)
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: try Self.shippedPins(), enforcement: .enforce)],
                                     isEnabled: true)
            let error = await networkError { try await net.perform(TestRequest<Echo>(rotated.provider(host: "localhost"), "/echo")) }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(rotated.recordedBytes().isEmpty)
            let report = try #require(await reports.wait(for: 1).first)
            #expect(report.kind == .mismatch && report.wasEnforced)
        }
    }

    @Test("A backup pin (the intermediate's) keeps a rotated host reachable, and nothing is reported")
    func aBackupPinSurvivesTheRotation() async throws {
        try await withRotatedServer { rotated in
            let net = makeTLSManager()
            let reports = PinningReportCollector(net)
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "localhost.pem"),
                                                                                          try pin(of: "TestIntermediateCA.pem")],
                                                  enforcement: .enforce)], isEnabled: true)
            _ = try await net.perform(TestRequest<Echo>(rotated.provider(host: "localhost"), "/echo"))
            try await Task.sleep(for: .milliseconds(100))
            #expect(reports.all.filter { $0.kind == .mismatch }.isEmpty)
        }
    }

    @Test("A rule past its expiry date is not enforced: the mismatch is let through, reported as expired, and the log says so")
    func anExpiredRuleIsNotEnforced() async throws {
        try await withRotatedServer { rotated in
            let log = LogCollector()
            let net = makeTLSManager()
            net.isVerbose = true
            net.logHandler = { log.append($0) }
            let reports = PinningReportCollector(net)
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: try Self.shippedPins(), enforcement: .enforce,
                                                  expires: Date(timeIntervalSinceNow: -86_400))], isEnabled: true)
            #expect(log.text.contains("expired on"), "\(log.text)")
            _ = try await net.perform(TestRequest<Echo>(rotated.provider(host: "localhost"), "/echo"))
            let report = try #require(await reports.wait(for: 1).first)
            #expect(report.ruleExpired && !report.wasEnforced)
        }
    }

    @Test("The rollout initializer needs two distinct pins unless allowsSinglePin says otherwise; the 2.0 one still takes one")
    func backupPinsAreRequired() throws {
        let net = makeTLSManager()
        let one = try pin(of: "localhost.pem")
        for pins in [[one], [one, one, "sha256//" + one.dropFirst("sha256/".count)]] {
            #expect(throws: NetworkError.self) {
                try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: pins, enforcement: .enforce)], isEnabled: true)
            }
            do {
                try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: pins, enforcement: .reportOnly)], isEnabled: true)
                Issue.record("\(pins) was accepted")
            } catch {
                let description = error.errorDescription ?? ""
                #expect(description.contains("backup pin") && description.contains("allowsSinglePin"), "\(description)")
                #expect(description.contains(pins.count == 1 ? "one pin" : "same key"), "\(description)")
            }
        }
        try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [one], enforcement: .enforce, allowsSinglePin: true)],
                                 isEnabled: true)
        try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [one])], isEnabled: true)
        #expect(throws: NetworkError.self) {
            try net.configurePinning([PinningRule(publicKeyHashes: [one, try pin(of: "unrelated.pem")], enforcement: .enforce,
                                                  reportURI: URL(string: "file:///tmp/reports"))], isEnabled: true)
        }
    }

    @Test("A pinned chain that expires within pinExpiryWarning is reported on the first connection, not again the same day")
    func expiringChainIsReportedOncePerDay() async throws {
        try await withLegitServer { server in
            let net = makeTLSManager()
            // The test certificates expire in 2123: a warning window of 200 years covers them.
            net.pinExpiryWarning = .seconds(200 * 365 * 86_400)
            let reports = PinningReportCollector(net)
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "localhost.pem"),
                                                                                          try pin(of: "TestIntermediateCA.pem")],
                                                  enforcement: .enforce)], isEnabled: true)
            _ = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
            let report = try #require(await reports.wait(for: 1).first)
            #expect(report.kind == .expiringSoon && !report.wasEnforced)
            #expect(report.chain.count == 3)
            net.closeIdleConnections()
            _ = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
            try await Task.sleep(for: .milliseconds(200))
            #expect(reports.all.count == 1, "\(reports.all)")
        }
    }

    @Test("A pinExpiryWarning of any Duration never traps the handshake: beyond Int64.max s every chain expires within it, below zero none",
          arguments: [(Duration.seconds(1e20), true), (.seconds(Int64.max) + .nanoseconds(1), true), (.seconds(-1e20), false)])
    func hugeExpiryWarningsDoNotTrap(warning: Duration, reported: Bool) async throws {
        try await withLegitServer { server in
            let net = makeTLSManager()
            net.pinExpiryWarning = warning
            let reports = PinningReportCollector(net)
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "localhost.pem"),
                                                                                          try pin(of: "TestIntermediateCA.pem")],
                                                  enforcement: .enforce)], isEnabled: true)
            _ = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
            if reported {
                #expect(try #require(await reports.wait(for: 1).first).kind == .expiringSoon)
            } else {
                try await Task.sleep(for: .milliseconds(100))
                #expect(reports.all.isEmpty)
            }
        }
    }

    @Test("With the default warning of 30 days, the test chain (valid for a century) is not reported")
    func aLongLivedChainIsNotReported() async throws {
        try await withLegitServer { server in
            let net = makeTLSManager()
            let reports = PinningReportCollector(net)
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "localhost.pem"),
                                                                                          try pin(of: "TestIntermediateCA.pem")],
                                                  enforcement: .enforce)], isEnabled: true)
            _ = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
            try await Task.sleep(for: .milliseconds(100))
            #expect(reports.all.isEmpty)
        }
    }

    @Test("The public pinningReports sequence delivers to each iterator")
    func publicSequenceDeliversToEachIterator() async throws {
        try await withRotatedServer { rotated in
            let net = makeTLSManager()
            var first = net.pinningReports.makeAsyncIterator()
            var second = net.pinningReports.makeAsyncIterator()
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: try Self.shippedPins(), enforcement: .reportOnly)],
                                     isEnabled: true)
            _ = try await net.perform(TestRequest<Echo>(rotated.provider(host: "localhost"), "/echo"))
            #expect(await first.next()?.kind == .mismatch)
            #expect(await second.next()?.kind == .mismatch)
        }
    }

    @Test("Mock mode never pins and never reports")
    func mockModeNeverReports() async throws {
        let mocks = FileManager.default.temporaryDirectory.appendingPathComponent("pin-mocks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: mocks, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: mocks) }
        try Data(#"{"path":"/echo","method":"GET"}"#.utf8).write(to: mocks.appendingPathComponent("echo.json"))
        let net = makeTLSManager()
        net.areMocksEnabled = true
        net.mockResponsesDirectory = mocks
        let reports = PinningReportCollector(net)
        try net.configurePinning([PinningRule(publicKeyHashes: try Self.shippedPins(), enforcement: .enforce)], isEnabled: true)
        let provider = TestProvider(host: "localhost", httpScheme: .https, port: 1, headers: [:])
        _ = try? await net.perform(MockedRequest<Echo>(provider, "/echo", mock: "echo"))
        try await Task.sleep(for: .milliseconds(100))
        #expect(reports.all.isEmpty)
    }

    // MARK: Report URIs

    @Test("A report URI gets the report as JSON once a day per host and pins, without the request's headers or path")
    func reportURIGetsOneReportADay() async throws {
        try await withReportServer { collector in
            try await withRotatedServer { rotated in
                let net = makeTLSManager()
                let reports = PinningReportCollector(net)
                try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: try Self.shippedPins(), enforcement: .reportOnly,
                                                      reportURI: collector.url())], isEnabled: true)
                for _ in 0..<3 {
                    _ = try await net.perform(TestRequest<Echo>(rotated.provider(host: "localhost"), "/echo/private/path",
                                                                headers: ["Authorization": "Bearer report-secret"]))
                    net.closeIdleConnections()  // a new handshake each time: three mismatches
                }
                #expect(await reports.wait(for: 3).count == 3)
                let deadline = ContinuousClock.now + .seconds(5)
                while try await collector.count() < 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
                try await Task.sleep(for: .milliseconds(300))
                let received = try await collector.reports()
                #expect(received.count == 1, "at most once a day per host and pins")
                let report = try #require(received.first)
                #expect(report.method == "POST" && report.header("Content-Type")?.hasPrefix("application/json") == true)
                #expect(report.raw.contains("\"kind\":\"mismatch\"") && report.raw.contains("\"host\":\"localhost\""), "\(report.raw)")
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                let posted = try decoder.decode(PinningReport.self, from: Data(report.raw.utf8))
                #expect(posted.expectedPins == (try Self.shippedPins()) && posted.port == rotated.port && !posted.wasEnforced)
                #expect(!report.raw.contains("report-secret") && !report.raw.contains("private/path"))
                #expect(report.header("Authorization") == nil)
            }
        }
    }

    @Test("A report URI that answers 500 or never answers delays and fails nothing", arguments: ["500", "hang"])
    func aFailingReportURIDoesNotTouchTheRequest(mode: String) async throws {
        try await withReportServer { collector in
            try await withRotatedServer { rotated in
                let net = makeTLSManager()
                let uri = mode == "500" ? collector.url(status: 500) : collector.url(hang: true)
                try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: try Self.shippedPins(), enforcement: .reportOnly,
                                                      reportURI: uri)], isEnabled: true)
                for _ in 0..<3 {
                    let started = ContinuousClock.now
                    let echo = try await net.perform(TestRequest<Echo>(rotated.provider(host: "localhost"), "/echo"))
                    #expect(echo.path == "/echo")
                    #expect(ContinuousClock.now - started < .seconds(3))
                    net.closeIdleConnections()
                }
                let deadline = ContinuousClock.now + .seconds(5)
                var count = 0
                while count < 1, ContinuousClock.now < deadline {
                    count = try await collector.count()
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(count == 1, "one POST was tried, and not again that day")
            }
        }
    }

    // MARK: Hostile chains

    @Test("A certificate that expires in 10 days is reported with the default warning of 30 days")
    func aCertificateExpiringIn10DaysIsReported() async throws {
        try await withGeneratedTLSServer("expiring-chain.pem", key: "expiring.key") { server in
            let net = makeTLSManager()
            let reports = PinningReportCollector(net)
            let leaf = try await generatedPin(of: "expiring.pem")
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [leaf, try pin(of: "TestIntermediateCA.pem")],
                                                  enforcement: .enforce)], isEnabled: true)
            _ = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
            let report = try #require(await reports.wait(for: 1).first)
            #expect(report.kind == .expiringSoon)
            let notAfter = try #require(report.chain.first?.notAfter)
            #expect(notAfter.timeIntervalSinceNow > 9 * 86_400 && notAfter.timeIntervalSinceNow < 11 * 86_400)
        }
    }

    @Test("A chain of 50 certificates: a report-only mismatch is let through and reported with every certificate, memory bounded")
    func aChainOf50IsReported() async throws {
        try await withGeneratedTLSServer("long-chain.pem", key: "long.key") { server in
            let net = makeTLSManager()
            let reports = PinningReportCollector(net)
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: try Self.shippedPins(), enforcement: .reportOnly)],
                                     isEnabled: true)
            _ = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
            let report = try #require(await reports.wait(for: 1).first)
            #expect(report.chain.count == 51, "50 sent, and the root from the trust store")
            #expect(Set(report.chain.map(\.publicKeyHash)).count == 51)
        }
    }

    @Test("A leaf with a malformed extension is pinned and reported like any other")
    func aMalformedExtensionIsHandled() async throws {
        try await withGeneratedTLSServer("malformed-ext-chain.pem", key: "malformed-ext.key") { server in
            let net = makeTLSManager()
            let leaf = try await generatedPin(of: "malformed-ext.pem")
            try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [leaf, try pin(of: "TestIntermediateCA.pem")],
                                                  enforcement: .enforce)], isEnabled: true)
            _ = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
        }
    }

    // MARK: The trust callback

    @Test("serverTrust gets the verified chain as DER, leaf first, and its accept lets the request through")
    func serverTrustSeesTheChainAndAccepts() async throws {
        try await withLegitServer { server in
            let seen = Protected<[Data]>([])
            let tls = TLSOptions(trustedCertificates: testCABundle) { chain in
                seen.withLock { $0 = chain }
                return .accept
            }
            let net = makeManager()
            let echo = try await net.perform(TestRequest<Echo>(TLSProvider(port: server.port, tls: tls), "/echo"))
            #expect(echo.path == "/echo")
            let chain = seen.withLock { $0 }
            #expect(chain.count == 3)
            #expect(chain.first.map { ServerCertificate.read($0).first?.publicKeyHash } == (try pin(of: "localhost.pem")))
        }
    }

    @Test("serverTrust's reject or throw refuses the connection before anything is sent, saying why",
          arguments: ["reject", "throw"])
    func serverTrustRefusals(kind: String) async throws {
        try await withLegitServer { server in
            let tls = TLSOptions(trustedCertificates: testCABundle) { _ in
                if kind == "reject" { return .reject(reason: "not in the transparency log") }
                throw TestServerError(description: "the policy store is unreachable")
            }
            let net = makeManager()
            let error = await networkError { try await net.perform(TestRequest<Echo>(TLSProvider(port: server.port, tls: tls), "/secret")) }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            let description = error?.errorDescription ?? ""
            #expect(description.contains("serverTrust"), "\(description)")
            #expect(description.contains(kind == "reject" ? "not in the transparency log" : "the policy store is unreachable"), "\(description)")
            #expect(server.recordedBytes().isEmpty)
        }
    }

    // Measuring: the engine's thread waits for the callback (libcurl 7.88 cannot suspend a
    // handshake), so every other transfer of the process stalls meanwhile.
    @Test("A serverTrust callback that does not answer is cut off at the connect timeout and refuses", .measuring)
    func serverTrustSilenceIsBoundedByTheConnectTimeout() async throws {
        try await withLegitServer { server in
            let tls = TLSOptions(trustedCertificates: testCABundle) { _ in
                Thread.sleep(forTimeInterval: 6)
                return .accept
            }
            let net = makeManager()
            net.timeouts = Timeouts(connect: .seconds(1))
            let started = ContinuousClock.now
            let error = await networkError { try await net.perform(TestRequest<Echo>(TLSProvider(port: server.port, tls: tls), "/secret")) }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            let description = error?.errorDescription ?? ""
            #expect(description.contains("serverTrust") && description.contains("did not answer within 1 s"), "\(description)")
            #expect(ContinuousClock.now - started < .seconds(4))
            #expect(server.recordedBytes().isEmpty)
        }
    }

    @Test("A connection a trust callback accepted is not reused for a request without it, and the other way round")
    func trustCallbackConnectionsAreKeptApart() async throws {
        try await withLegitServer { server in
            let calls = Protected(0)
            let tls = TLSOptions(trustedCertificates: testCABundle) { _ in
                calls.withLock { $0 += 1 }
                return .accept
            }
            let net = makeManager()
            let plain = TLSProvider(port: server.port, tls: TLSOptions(trustedCertificates: testCABundle))
            _ = try await net.perform(TestRequest<Echo>(plain, "/echo"))
            _ = try await net.perform(TestRequest<Echo>(TLSProvider(port: server.port, tls: tls), "/echo"))
            #expect(calls.withLock { $0 } == 1, "the plain request's connection was not reused for the callback's")
        }
    }

    // MARK: Reading a chain

    @Test("serverCertificates(of:) reads the verified chain through the library's handshake, leaf first; a bad chain or URL throws")
    func serverCertificatesReadsTheChain() async throws {
        try await withLegitServer { server in
            let net = makeManager()
            let url = try #require(URL(string: "https://localhost:\(server.port)/anything"))
            let chain = try await net.serverCertificates(of: url, trustedCertificates: testCABundle)
            #expect(chain.map(\.publicKeyHash) == [try pin(of: "localhost.pem"), try pin(of: "TestIntermediateCA.pem"),
                                                   try pin(of: "TestRootCA.pem")])
            #expect(chain[0].subject.contains("localhost") && chain[0].issuer == chain[1].subject, "\(chain)")
            // Without the test CA the chain does not verify: no chain is returned for it.
            let untrusted = await networkError { try await net.serverCertificates(of: url) }
            guard case .invalidCertificate = untrusted else { Issue.record("got \(String(describing: untrusted))"); return }
            let plain = await networkError { try await net.serverCertificates(of: try #require(URL(string: "http://localhost:\(server.port)/"))) }
            guard case .invalidRequest = plain else { Issue.record("got \(String(describing: plain))"); return }
        }
        let file = try Data(contentsOf: certificatesDirectory.appendingPathComponent("localhost-chain.pem"))
        #expect(ServerCertificate.certificates(in: file).map(\.publicKeyHash) == [try pin(of: "localhost.pem"), try pin(of: "TestIntermediateCA.pem")])
        #expect(ServerCertificate.certificates(in: Data("not a certificate".utf8)).isEmpty)
    }

    @Test("A 2.0 rule with a single pin is accepted, and the log warns that it has no backup")
    func aSinglePinIsWarnedAbout() throws {
        let log = LogCollector()
        let net = makeTLSManager()
        net.isVerbose = true
        net.logHandler = { log.append($0) }
        try net.configurePinning([PinningRule(hosts: ["localhost"], publicKeyHashes: [try pin(of: "localhost.pem")])], isEnabled: true)
        #expect(log.text.contains("single pin and no backup"), "\(log.text)")
    }

    // MARK: Bounds

    @Test("10,000 mismatches from as many hosts leave the monitor's tables bounded and post at most a few at once")
    func tenThousandMismatchesStayBounded() async throws {
        let monitor = PinningMonitor()
        let stream = monitor.subscribe()
        for index in 0..<10_000 {
            monitor.deliver(PinningReport(kind: .mismatch, host: "h\(index).invalid", port: 443, chain: [], expectedPins: ["sha256/x"],
                                          wasEnforced: true, ruleExpired: false, date: Date()),
                            reportURI: nil)
        }
        var buffered = 0
        var iterator = stream.makeAsyncIterator()
        monitor.finishForTesting()
        while await iterator.next() != nil { buffered += 1 }
        #expect(buffered == 256, "a subscriber that does not read keeps the newest 256")
        #expect(monitor.tableSizesForTesting.logged <= PinningMonitor.tableLimit)
    }
}
