import Foundation

extension NetworkManager {
    /// Pins the public keys of the certificates in ``certificatesDirectory``, for every host.
    ///
    /// Call it once at start-up. A connection then succeeds only if normal TLS verification
    /// passes **and** the public key of some certificate in the verified chain (leaf,
    /// intermediate or root) matches a pin; otherwise the handshake is refused before any
    /// request byte is sent, and the request fails with ``NetworkError/invalidCertificate``
    /// naming the pins the server presented.
    ///
    /// ```swift
    /// let cert01 = CertificateModel(filename: "Cert001", fileExtension: .der)
    /// let cert02 = CertificateModel(filename: "Cert002", fileExtension: .crt)
    /// try Net.configurePinningWith(certificates: [cert01, cert02], isEnabled: true)
    /// ```
    ///
    /// Calling it again replaces the configuration; requests already running keep the one they
    /// started with, and connections opened under the old one are not reused.
    ///
    /// To turn pinning off, as AMNetworkLayer's README does, pass no certificates and `false`:
    ///
    /// ```swift
    /// try Net.configurePinningWith(certificates: [], isEnabled: false)
    /// ```
    ///
    /// - Parameters:
    ///   - certificates: the certificate files to pin (DER or PEM, whatever the extension).
    ///   - isEnabled: `false` keeps the pins but does not enforce them (for a development server);
    ///     with no certificates, pinning is off.
    /// - Throws: ``NetworkError/invalidCertificate`` when a file is missing, unreadable or holds
    ///   no certificate, or when `isEnabled` is `true` with no certificates (pinning nothing would
    ///   look like protection and give none: it fails closed); the previous configuration then stays in force.
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
        // Nothing kept and nothing enforced: off.
        if configuration?.isEnabled == false, configuration?.rules.allSatisfy({ $0.pins.isEmpty }) == true { configuration = nil }
        settings.withLock { $0.pinning = configuration }
    }
}
