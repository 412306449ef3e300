import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A secret echoed in base64 is scrubbed like one echoed as it is (issue 54): standard and
/// URL-safe, padded and not, and, for a secret of at least 5 bytes, inside a longer base64 text
/// at each of the three alignments. Checked by decoding what the library wrote, not by
/// repeating the redactor's forms.
@Suite("Base64 spellings of a secret", .sharing)
struct Base64SecretSpellingTests {
    static let token = "tok_9Fz2-Qw8Lm4Xv7"
    static let apiKey = "key/4+Rt6~Zp1"

    @Test("A bearer token and an API key echoed in base64 (alone, URL-safe, unpadded, inside an encoded document) reach no log, HAR or recording")
    func echoedInBase64() async throws {
        let sinks = try SecretSinks()
        let server = try await TestServer.shared()
        let bearer = AuthProvider(port: server.port, authentication: .bearer(Self.token))
        let echoed = try await sinks.net.perform(MockedRequest<CredentialEcho>(bearer, "/echo-credential", mock: "bearer"))
        #expect(echoed.p == Self.token && echoed.embedded.count == 6, "the server echoed the token: the check means something")
        #expect(echoed.embedded.allSatisfy { spellsSecretInBase64(Self.token, in: $0) })
        let key = AuthProvider(port: server.port, authentication: .apiKey(Self.apiKey))
        let keyEcho = try await sinks.net.perform(MockedRequest<CredentialEcho>(key, "/echo-credential?header=X-API-Key", mock: "key"))
        #expect(keyEcho.p == Self.apiKey)
        try sinks.expectNowhere(Self.token)
        try sinks.expectNowhere(Self.apiKey)
    }

    @Test("Scrubbing removes every base64 spelling of a secret of 5 bytes or more, at any offset in a longer text")
    func everyAlignmentIsScrubbed() {
        var random = SeededRandom(seed: 0xB64)
        for _ in 0..<300 {
            let secret = String((0..<Int.random(in: 5...40, using: &random)).map { _ in
                Character(UnicodeScalar(UInt8.random(in: 0x21...0x7E, using: &random)))
            })
            let forms = Redactor.withEchoedForms([secret])
            let prefix = (0..<Int.random(in: 0...7, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let suffix = (0..<Int.random(in: 0...7, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let encoded = Data(prefix + Array(secret.utf8) + suffix).base64EncodedString()
            for text in [encoded, encoded.replacingOccurrences(of: "=", with: ""),
                         encoded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"),
                         "{\"data\": \"\(encoded)\"}"] {
                let scrubbed = Redactor.scrub(text, secrets: forms)
                #expect(!spellsSecretInBase64(secret, in: scrubbed), "\(secret.debugDescription) in \(text) → \(scrubbed)")
            }
        }
    }

    @Test("A 4-byte secret is scrubbed in base64 on its own; inside a longer base64 text it is not looked for (too short to tell)")
    func shortSecretsOnlyOnTheirOwn() {
        let forms = Redactor.withEchoedForms(["k3y!"])
        let alone = Data("k3y!".utf8).base64EncodedString()
        #expect(Redactor.scrub("token \(alone) end", secrets: forms) == "token <redacted> end")
        #expect(Redactor.scrub("token \(alone.dropLast(2)) end", secrets: forms) == "token <redacted> end")
        #expect(Redactor.base64Forms(of: Array("k3y!".utf8)).count == 4, "standard and URL-safe, padded and not")
    }

    @Test("No secret, no form and no work: the text comes back as it was")
    func nothingToScrubCostsNothing() {
        #expect(Redactor.withEchoedForms([]).isEmpty)
        let text = "dG9rZW4gYWJjZGVmZ2hpams="
        #expect(Redactor.scrub(text, secrets: Redactor.withEchoedForms([])) == text)
    }
}
