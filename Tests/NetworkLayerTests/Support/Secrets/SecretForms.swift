import Foundation
@testable import NetworkLayer

/// The forms a secret value takes in text the library writes or a server echoes: as it is,
/// percent-encoded (a query), and escaped as in JSON (Foundation's and an ASCII-only encoder's,
/// slashes escaped or not). A leak check looks for every form, byte for byte.
struct SecretForms: Sendable {
    let secret: String
    let forms: [[UInt8]]

    init(_ secret: String) {
        self.secret = secret
        forms = Array(Set([secret, ParameterValue.percentEncode(secret),
                           Redactor.jsonEscaped(secret, asciiOnly: false), Redactor.jsonEscaped(secret, asciiOnly: true),
                           Redactor.jsonEscaped(secret, asciiOnly: false).replacingOccurrences(of: "/", with: "\\/")]))
            .map { Array($0.utf8) }
    }

    /// Whether `text` holds the secret in any of its forms.
    func appears(in text: String) -> Bool { appears(in: Array(text.utf8)) }

    func appears(in bytes: [UInt8]) -> Bool { forms.contains { bytes.containsBytes($0) } }
}

/// Whether `text` spells `secret`, as it is or with percent-escapes (decoded as many times as the
/// redactor decodes when it scrubs).
func spellsSecret(_ secret: String, in text: some Collection<UInt8>) -> Bool {
    var level = Array(text)
    for _ in 0...Redactor.percentDecodingDepth {
        if level.containsBytes(secret.utf8) { return true }
        level = level.percentDecodedLeniently()
    }
    return false
}

/// The forms in which a credential travels on the wire (as it is, and percent-encoded in a
/// query), for looking for it in the bytes a server received.
func wireForms(of secret: String) -> [[UInt8]] {
    Array(Set([secret, ParameterValue.percentEncode(secret)])).map { Array($0.utf8) }
}
