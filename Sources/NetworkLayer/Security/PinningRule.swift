import Foundation

/// Pins that apply to some hosts (or to all), for ``NetworkManager/configurePinning(_:isEnabled:)``.
///
/// A rule written with ``init(hosts:publicKeyHashes:certificates:enforcement:expires:reportURI:allowsSinglePin:)``
/// needs two distinct pins, one of them a backup (a key the server does not use yet, or its
/// intermediate's): the backup is what keeps the host reachable when the certificate rotates.
/// Rules written with the 2.0 initializer keep accepting one pin, and the log warns about it.
public struct PinningRule: Sendable, Hashable {
    /// What a mismatch does.
    public enum Enforcement: String, Sendable, Hashable, Codable {
        /// The handshake is refused before any request byte is sent, and the mismatch is reported.
        case enforce
        /// The connection goes on and the mismatch is only reported: how a new pin set is tried
        /// on real traffic before it is enforced.
        case reportOnly
    }

    /// Host patterns, or `nil` for every host. A pattern is a host name (`api.example.com`,
    /// `127.0.0.1`), `*.example.com` for exactly one more label (`a.example.com`, not
    /// `example.com` nor `a.b.example.com`), or `**.example.com` for any depth including
    /// `example.com` itself. Compared ignoring case.
    public var hosts: [String]?
    /// Pins written as `sha256/<base64>`.
    public var publicKeyHashes: [String]
    /// Certificate files in ``NetworkManager/certificatesDirectory`` whose keys are pinned.
    public var certificates: [CertificateModel]
    /// Whether a mismatch refuses the connection or is only reported. Default ``Enforcement/enforce``.
    public var enforcement: Enforcement
    /// After this date the rule is not enforced: a mismatch is reported and the connection goes on
    /// (an app that is never updated does not lose its backend to pins nobody rotates). `nil`: never.
    public var expires: Date?
    /// Where each mismatch is POSTed as JSON (``PinningReport``), at most once per host and pin set
    /// a day, in the background. `nil`: reports go to the log and ``NetworkManager/pinningReports`` only.
    public var reportURI: URL?
    /// Accepts a rule with a single pin, which has no backup for a rotation.
    public var allowsSinglePin: Bool

    /// A rule as 2.0 wrote it: enforced, never expiring, no report URI; one pin is accepted.
    public init(hosts: [String]? = nil, publicKeyHashes: [String] = [], certificates: [CertificateModel] = []) {
        self.init(hosts: hosts, publicKeyHashes: publicKeyHashes, certificates: certificates,
                  enforcement: .enforce, expires: nil, reportURI: nil, allowsSinglePin: true)
    }

    /// A rule that can be rolled out: `.reportOnly` first, an expiry, a report URI. It needs two
    /// distinct pins unless `allowsSinglePin` is `true`.
    public init(hosts: [String]? = nil, publicKeyHashes: [String] = [], certificates: [CertificateModel] = [],
                enforcement: Enforcement, expires: Date? = nil, reportURI: URL? = nil, allowsSinglePin: Bool = false) {
        self.hosts = hosts
        self.publicKeyHashes = publicKeyHashes
        self.certificates = certificates
        self.enforcement = enforcement
        self.expires = expires
        self.reportURI = reportURI
        self.allowsSinglePin = allowsSinglePin
    }
}
