import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What the pinning-report fuzz target found, stated as behaviour.
@Suite("Fuzz findings: pinning reports", .sharing)
struct PinningReportFindingsTests {
    @Test("A pin whose base64 starts with '/' (our form reads sha256//…) parses back to itself; libcurl's sha256// form still parses")
    func pinStartingWithSlash() throws {
        let digest = Data([0xFC] + [UInt8](repeating: 7, count: 31))
        let pin = PublicKeyPin(digest: digest)
        #expect(pin.description.hasPrefix("sha256//"))
        #expect(try PublicKeyPin(pin.description) == pin)
        let plain = PublicKeyPin(digest: Data(repeating: 1, count: 32))
        #expect(try PublicKeyPin("sha256//" + plain.description.dropFirst("sha256/".count)) == plain)
        try FuzzTargets.named("pinning-report")?.check(FuzzInputs.regression("pinning-report", "pin-base64-starting-with-slash"))
    }

    @Test("A decoded report's log line escapes control characters in every part, the pins included")
    func controlCharactersAreEscaped() throws {
        let report = PinningReport(kind: .mismatch, host: "a\nb", port: 1,
                                   chain: [ServerCertificate(subject: "/CN=x\u{1B}[31m", issuer: "", notAfter: nil, publicKeyHash: "sha256/\u{7F}")],
                                   expectedPins: ["sha256/\r"], wasEnforced: true, ruleExpired: false, date: Date())
        #expect(!report.description.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(report.description.debugDescription)")
        try FuzzTargets.named("pinning-report")?.check(FuzzInputs.regression("pinning-report", "control-character-in-a-decoded-pin"))
    }
}
