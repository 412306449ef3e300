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

/// Whether `text` spells `secret` in base64, standard or URL-safe, on its own or inside a longer
/// base64 text at any alignment: each run of base64 characters is decoded from each of its first
/// four characters on (a run may start inside a group), and the bytes looked through. Written
/// apart from the redactor's forms, so that it checks them rather than repeats them.
func spellsSecretInBase64(_ secret: String, in text: String) -> Bool {
    let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_")
    let needle = Array(secret.utf8)
    let runs = text.split { !alphabet.contains($0) }
    for run in runs where run.count >= 4 {
        let standard = String(run.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        for start in 0..<4 where run.count - start >= 4 {
            let piece = standard.dropFirst(start)
            let whole = piece.prefix(piece.count / 4 * 4)
            let rest = piece.dropFirst(whole.count)
            var candidates = [String(whole)]
            // A last group cut short (unpadded) decodes once padded.
            if rest.count >= 2 { candidates.append(String(piece) + String(repeating: "=", count: 4 - rest.count)) }
            for candidate in candidates {
                if let bytes = Data(base64Encoded: candidate), Array(bytes).containsBytes(needle) { return true }
            }
        }
    }
    return false
}
