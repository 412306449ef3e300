import Foundation

/// A certificate file in ``NetworkManager/certificatesDirectory`` whose public key is pinned.
///
/// The extension only names the file: DER or PEM content is accepted whatever it is, and a PEM
/// file holding several certificates pins each of them.
public struct CertificateModel: Sendable, Hashable {
    /// The extension of a certificate file.
    public enum FileExtension: Sendable, Hashable {
        case der
        case crt
        case cer
        case pem
        /// Any other extension, without the dot.
        case other(fileExtension: String)

        /// The extension as written on disk, without the dot.
        public var rawValue: String {
            switch self {
            case .der: "der"
            case .crt: "crt"
            case .cer: "cer"
            case .pem: "pem"
            case .other(let fileExtension): fileExtension
            }
        }
    }

    public let filename: String
    public let fileExtension: FileExtension

    /// Names a certificate file: `<certificatesDirectory>/<filename>.<fileExtension>`.
    public init(filename: String, fileExtension: FileExtension) {
        self.filename = filename
        self.fileExtension = fileExtension
    }

    /// `filename.extension`.
    public var fileName: String {
        fileExtension.rawValue.isEmpty ? filename : "\(filename).\(fileExtension.rawValue)"
    }
}
