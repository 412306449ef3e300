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
        // `sha256/` first: a digest whose base64 starts with `/` reads `sha256//…` in our own form.
        var digest: Data?
        for prefix in ["sha256/", "sha256//"] where digest == nil && trimmed.hasPrefix(prefix) {
            digest = Data(base64Encoded: String(trimmed.dropFirst(prefix.count))).flatMap { $0.count == 32 ? $0 : nil }
        }
        guard let digest else {
            throw .invalidCertificate(.init(reason: "\"\(text)\" is not a public-key pin; expected sha256/ followed by "
                                            + "the base64 of a 32-byte SHA-256 digest"))
        }
        sha256 = digest
    }

    init(digest: Data) { sha256 = digest }

    /// `sha256/<base64>`.
    public var description: String { "sha256/" + sha256.base64EncodedString() }
}
