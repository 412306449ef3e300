import Foundation

/// Pins that apply to some hosts (or to all), for ``NetworkManager/configurePinning(_:isEnabled:)``.
public struct PinningRule: Sendable, Hashable {
    /// Host patterns, or `nil` for every host. A pattern is a host name (`api.example.com`,
    /// `127.0.0.1`), `*.example.com` for exactly one more label (`a.example.com`, not
    /// `example.com` nor `a.b.example.com`), or `**.example.com` for any depth including
    /// `example.com` itself. Compared ignoring case.
    public var hosts: [String]?
    /// Pins written as `sha256/<base64>`.
    public var publicKeyHashes: [String]
    /// Certificate files in ``NetworkManager/certificatesDirectory`` whose keys are pinned.
    public var certificates: [CertificateModel]

    public init(hosts: [String]? = nil, publicKeyHashes: [String] = [], certificates: [CertificateModel] = []) {
        self.hosts = hosts
        self.publicKeyHashes = publicKeyHashes
        self.certificates = certificates
    }
}
