import Foundation
import NetworkLayer

// Issue 51: pins a team can roll out and rotate, as the CertificatePinning article writes them.
func rollOutPins() async throws {
    let current = "sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
    let backup = "sha256/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB="
    try Net.configurePinning([
        PinningRule(hosts: ["api.example.com"], publicKeyHashes: [current, backup],
                    enforcement: .reportOnly,
                    expires: Date(timeIntervalSinceNow: 90 * 86_400),
                    reportURI: URL(string: "https://reports.example.com/pins")),
        PinningRule(hosts: ["legacy.example.com"], publicKeyHashes: [current], enforcement: .enforce, allowsSinglePin: true),
    ], isEnabled: true)
    Net.pinExpiryWarning = .seconds(14 * 86_400)
    let enforcement: PinningRule.Enforcement = .enforce
    print(enforcement.rawValue)
    Task {
        for await report in Net.pinningReports {
            let kind: PinningReport.Kind = report.kind
            print(kind, report.host, report.port, report.wasEnforced, report.ruleExpired, report.date, report.expectedPins,
                  report.chain.map { ($0.subject, $0.issuer, $0.notAfter as Date?, $0.publicKeyHash) }, report)
        }
    }
    let tls = TLSOptions(minimumVersion: .v1_2, trustedCertificates: nil) { (chain: [Data]) throws -> ServerTrustDecision in
        chain.count > 1 ? .accept : .reject(reason: "no intermediate")
    }
    _ = tls.serverTrust
    let chain: [ServerCertificate] = try await Net.serverCertificates(of: URL(string: "https://api.example.com")!)
    let fromFile: [ServerCertificate] = ServerCertificate.certificates(in: Data())
    print(chain.count + fromFile.count)
}
