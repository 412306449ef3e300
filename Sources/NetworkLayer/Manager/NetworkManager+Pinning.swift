import Foundation

extension NetworkManager {
    /// Pins the public keys of the certificates in ``certificatesDirectory``, for every host.
    ///
    /// A connection then succeeds only if normal TLS verification passes **and** some certificate
    /// of the verified chain has a pinned public key; otherwise the handshake is refused before any
    /// request byte is sent, with ``NetworkError/invalidCertificate`` naming the pins presented.
    /// Calling it again replaces the configuration for requests started afterwards; connections
    /// opened under the old one are not reused.
    ///
    /// ```swift
    /// let cert01 = CertificateModel(filename: "Cert001", fileExtension: .der)
    /// let cert02 = CertificateModel(filename: "Cert002", fileExtension: .crt)
    /// try Net.configurePinningWith(certificates: [cert01, cert02], isEnabled: true)
    /// try Net.configurePinningWith(certificates: [], isEnabled: false)  // pinning off
    /// ```
    ///
    /// - Parameters:
    ///   - certificates: the certificate files to pin (DER or PEM, whatever the extension).
    ///   - isEnabled: `false` keeps the pins without enforcing them; with no certificates, pinning is off.
    /// - Throws: ``NetworkError/invalidCertificate`` when a file is missing, unreadable or holds
    ///   no certificate, or for `isEnabled: true` with no certificates (it fails closed: pinning
    ///   nothing would look like protection); the previous configuration stays in force.
    public func configurePinningWith(certificates: [CertificateModel], isEnabled: Bool) throws(NetworkError) {
        try configurePinning([PinningRule(certificates: certificates)], isEnabled: isEnabled)
    }

    /// Pins public keys per host: rules with host patterns, `sha256/<base64>` hashes and certificate files.
    ///
    /// A host covered by several rules accepts the pins of all of them; a host covered by none is
    /// verified normally, without pins. An empty list removes pinning, and so does `isEnabled:
    /// false` with rules that hold no pins. See ``PinningRule``.
    ///
    /// - Throws: ``NetworkError/invalidCertificate`` for a malformed pin or pattern, a missing,
    ///   unreadable or non-certificate file, or an enforced rule (`isEnabled: true`) without pins;
    ///   the previous configuration then stays in force.
    public func configurePinning(_ rules: [PinningRule], isEnabled: Bool) throws(NetworkError) {
        let directory = certificatesDirectory
        var configuration = rules.isEmpty ? nil
            : try PinningConfiguration(rules, certificatesDirectory: directory, isEnabled: isEnabled)
        if configuration?.isEnabled == false, configuration?.rules.allSatisfy({ $0.pins.isEmpty }) == true { configuration = nil }
        settings.withLock { $0.pinning = configuration }
    }
}
