import Foundation

extension NetworkManager {
    /// Pins the public keys of the certificates in ``certificatesDirectory``, for every host: a connection
    /// then needs a pinned key in its verified chain, else ``NetworkError/invalidCertificate``.
    /// - Throws: ``NetworkError/invalidCertificate`` for a missing or unreadable file, or `isEnabled: true`
    ///   with no certificates (fails closed); the previous configuration stays in force.
    public func configurePinningWith(certificates: [CertificateModel], isEnabled: Bool) throws(NetworkError) {
        try configurePinning([PinningRule(certificates: certificates)], isEnabled: isEnabled)
    }

    /// Pins public keys per host (see ``PinningRule``); a host no rule covers is verified without pins.
    /// - Throws: ``NetworkError/invalidCertificate`` for a malformed pin, pattern or file, or an
    ///   enforced rule without pins; the previous configuration stays in force.
    public func configurePinning(_ rules: [PinningRule], isEnabled: Bool) throws(NetworkError) {
        let directory = certificatesDirectory
        var configuration = rules.isEmpty ? nil
            : try PinningConfiguration(rules, certificatesDirectory: directory, isEnabled: isEnabled)
        if configuration?.isEnabled == false, configuration?.rules.allSatisfy({ $0.pins.isEmpty }) == true { configuration = nil }
        settings.withLock { $0.pinning = configuration }
    }
}
