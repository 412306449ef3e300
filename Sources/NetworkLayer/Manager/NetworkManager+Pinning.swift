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
        pinningMonitor.attachLog { [weak self] in
            self?.settings.withLock { ($0.isVerbose ? $0.logSink : nil, $0.logEntryHandler) } ?? (nil, nil)
        }
        var configuration = rules.isEmpty ? nil
            : try PinningConfiguration(rules, certificatesDirectory: directory, isEnabled: isEnabled, monitor: pinningMonitor)
        if configuration?.isEnabled == false, configuration?.rules.allSatisfy({ $0.pins.isEmpty }) == true { configuration = nil }
        settings.withLock { $0.pinning = configuration }
    }

    /// Every pinning report from the moment the sequence is iterated: each mismatch (enforced,
    /// report-only or of an expired rule) and each pinned chain that expires within
    /// ``pinExpiryWarning``. Reports also go to the log and to the rules' report URIs.
    public var pinningReports: PinningReports { PinningReports(monitor: pinningMonitor) }

    /// How soon before a certificate of a pinned chain expires it is reported, on the first
    /// connection to the host and daily after. Default 30 days.
    public var pinExpiryWarning: Duration {
        get { pinningMonitor.expiryWarning }
        set { pinningMonitor.expiryWarning = newValue }
    }
}
