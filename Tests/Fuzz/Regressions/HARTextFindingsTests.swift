import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What the har-text fuzz target found, stated as behaviour.
@Suite("Fuzz findings: HAR text", .sharing)
struct HARTextFindingsTests {
    @Test("A token's base64 inside a longer base64 text of a binary body is scrubbed, at each of the three alignments")
    func tokenInBase64InsideABinaryBody() throws {
        let token = "nlS05a36hzs42"
        for offset in 0..<3 {
            let encoded = (Data(repeating: 0xA5, count: offset) + Data("Bearer \(token)".utf8)).base64EncodedString()
            let body = [0xFF, 0x00] + Array(encoded.utf8) + [0xFE]
            let scrubbed = try #require(Redactor.scrub(bytes: body, secrets: Redactor.withEchoedForms([token])), "offset \(offset): not scrubbed")
            #expect(scrubbed.containsBytes("<redacted>".utf8), "offset \(offset)")
            #expect(!Redactor.base64Forms(of: Array(token.utf8)).contains { scrubbed.containsBytes($0.utf8) }, "offset \(offset)")
        }
        // The input on which the target's check, which knew only percent-escapes, took that for a changed body.
        try FuzzTargets.named("har-text")?.check(FuzzInputs.regression("har-text", "token-in-base64-inside-a-binary-body"))
    }
}
