import Foundation

/// A certificate and private key this client presents in the TLS handshake (mutual TLS), for
/// every request to the origin of the provider that names it (``ServiceProvider/clientCertificate``).
///
/// The files are read and checked with OpenSSL before anything is sent (and again when they
/// change): a missing file, no certificate or key, a wrong password or a key that is not the
/// certificate's fails the request with ``NetworkError/invalidCertificate(_:)`` saying which.
///
/// The password never appears in the log, an error, a description or copy-as-curl. The certificate
/// goes only to the provider's origin (a redirect elsewhere connects without it), and a connection
/// made with one certificate is never reused with another or none.
public struct ClientCertificate: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    enum Source: Sendable, Hashable {
        case pem(certificate: URL, privateKey: URL)
        case pkcs12(URL)
    }

    /// Behind one reference: the certificate travels with every request's transfer options.
    private final class Storage: Sendable, Hashable {
        let source: Source
        let password: String?

        init(source: Source, password: String?) {
            self.source = source
            self.password = password
        }

        static func == (lhs: Storage, rhs: Storage) -> Bool {
            lhs === rhs || (lhs.source == rhs.source && lhs.password == rhs.password)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(source)
            hasher.combine(password)
        }
    }

    private let storage: Storage

    var source: Source { storage.source }
    /// The private key's password (PEM) or the archive's (PKCS#12); `nil` for none.
    var password: String? { storage.password }

    private init(source: Source, password: String?) {
        storage = Storage(source: source, password: password)
    }

    /// A certificate and its private key in PEM files (they may be one file). The certificate
    /// file may carry the intermediate certificates after the client's own, which are sent too.
    ///
    /// - Parameters:
    ///   - certificate: the PEM certificate (`-----BEGIN CERTIFICATE-----`), then its chain if any.
    ///   - privateKey: the PEM private key, PKCS#8 or traditional (`BEGIN RSA PRIVATE KEY`).
    ///   - password: the key's password when it is encrypted; `nil` (the default) for none.
    public static func pem(certificate: URL, privateKey: URL, password: String? = nil) -> ClientCertificate {
        ClientCertificate(source: .pem(certificate: certificate, privateKey: privateKey), password: password)
    }

    /// A certificate and its private key in one PKCS#12 archive (`.p12`, `.pfx`, DER), as
    /// keychains and `openssl pkcs12 -export` write them.
    ///
    /// - Parameters:
    ///   - url: the archive.
    ///   - password: its password; `nil` (the default) for none, which also tries the empty password.
    public static func pkcs12(_ url: URL, password: String? = nil) -> ClientCertificate {
        ClientCertificate(source: .pkcs12(url), password: password)
    }

    /// The files, and whether a password is set (never the password itself).
    public var description: String {
        let files = switch source {
        case .pem(let certificate, let privateKey): "PEM \(certificate.path), key \(privateKey.path)"
        case .pkcs12(let url): "PKCS#12 \(url.path)"
        }
        return "ClientCertificate(\(files)\(password == nil ? "" : ", password \(Redactor.placeholder)"))"
    }

    public var debugDescription: String { description }

    /// What `dump` and debuggers show: the description, without the password.
    public var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }
}
