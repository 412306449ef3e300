import Foundation

/// The SHA-256 digest of a certificate's public key (its SubjectPublicKeyInfo), written
/// `sha256/<base64>` as OkHttp and HPKP do.
public struct PublicKeyPin: Hashable, Sendable, CustomStringConvertible {
    /// The 32-byte digest.
    public let sha256: Data

    /// Parses `sha256/<base64>` (libcurl's `sha256//<base64>` is accepted too).
    /// - Throws: ``NetworkError/invalidCertificate`` when the text is not a SHA-256 pin.
    public init(_ text: String) throws(NetworkError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var base64: Substring?
        for prefix in ["sha256//", "sha256/"] where trimmed.hasPrefix(prefix) {
            base64 = trimmed.dropFirst(prefix.count)
            break
        }
        guard let base64, let digest = Data(base64Encoded: String(base64)), digest.count == 32 else {
            throw .invalidCertificate(.init(reason: "\"\(text)\" is not a public-key pin; expected sha256/ followed by "
                                            + "the base64 of a 32-byte SHA-256 digest"))
        }
        sha256 = digest
    }

    init(digest: Data) { sha256 = digest }

    /// `sha256/<base64>`.
    public var description: String { "sha256/" + sha256.base64EncodedString() }
}
