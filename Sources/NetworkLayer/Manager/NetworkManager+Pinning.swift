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

extension NetworkManager {
    /// The verified chain `url`'s server presents, leaf first, through the same handshake and
    /// verification as every request (this manager's CA bundle, or `trustedCertificates`): what
    /// the pins are compared with. The chain is read in the handshake; the HTTP answer, whatever
    /// its status, does not matter. Not in mock mode.
    /// - Throws: ``NetworkError`` when the chain fails verification, the server cannot be reached,
    ///   `url` is not `https`, or mock mode is on.
    public func serverCertificates(of url: URL, trustedCertificates: URL? = nil) async throws(NetworkError) -> [ServerCertificate] {
        guard url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty else {
            throw .invalidRequest(.init(reason: "\(HeaderFields.printable(url.absoluteString)) is not an https URL with a host"))
        }
        let seen = Protected<[Data]>([])
        let tls = TLSOptions(trustedCertificates: trustedCertificates) { chain in
            seen.withLock { $0 = chain }
            return .accept
        }
        let request = BaseRequest<EmptyResponse>(serviceProvider: ChainProbeProvider(host: host, port: url.port, tls: tls),
                                                 endpoint: url.path.isEmpty ? "/" : url.path)
        request.httpMethod = .head
        guard !areMocksEnabled else {
            throw .invalidRequest(.init(reason: "mock mode is on: a mocked answer has no certificate chain to read"))
        }
        do {
            _ = try await perform(request)
        } catch {
            // A status the server answers with is not the chain's failure.
            if seen.withLock({ $0.isEmpty }) { throw error }
        }
        // Taken out: the callback, and what it holds, may outlive this call in the engine.
        return seen.withLock { chain in
            defer { chain = [] }
            return chain
        }.flatMap { ServerCertificate.read($0) }
    }
}

extension ServerCertificate {
    /// The certificates in a file's bytes: one DER certificate, or PEM certificates (at most 64).
    public static func certificates(in data: Data) -> [ServerCertificate] {
        read(data)
    }
}

private struct ChainProbeProvider: ServiceProvider {
    let host: String
    let port: Int?
    let tls: TLSOptions?
    var httpScheme: HTTPScheme { .https }
}
