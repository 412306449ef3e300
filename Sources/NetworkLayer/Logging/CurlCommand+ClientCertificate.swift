import Foundation

extension CurlCommand {
    /// The flags that present the provider's client certificate: the files by name, and the
    /// password always as `<redacted>`, even in an unredacted command (a log or a terminal's
    /// history must never hold it; replace it by hand to replay).
    static func clientCertificateArguments(_ options: TransferOptions) -> [String] {
        guard let certificate = options.clientCertificate else { return [] }
        var parts: [String] = []
        switch certificate.source {
        case .pem(let certificateURL, let keyURL):
            parts += ["--cert", quote(escapedForCertOption(certificateURL.path)), "--cert-type", "PEM", "--key", quote(keyURL.path)]
        case .pkcs12(let url):
            parts += ["--cert", quote(escapedForCertOption(url.path)), "--cert-type", "P12"]
        }
        if certificate.password != nil { parts += ["--pass", quote(Redactor.placeholder)] }
        return parts
    }

    /// curl reads `--cert file:password`: a `:` in the file's name is written `\:`, a `\` as `\\`.
    private static func escapedForCertOption(_ path: String) -> String {
        path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:")
    }
}
