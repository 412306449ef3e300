internal import CNetworkLayerCurl
import Foundation

/// What the handshake hook reads of a verified chain (an `X509_STORE_CTX *`, valid only while the
/// hook runs). A chain is read up to this many certificates: OpenSSL verifies at most 100.
enum HandshakeChain {
    static let limit = 64

    static func certificates(_ chain: UnsafeRawPointer) -> [ServerCertificate] {
        let count = min(Int(nl_chain_count(chain)), limit)
        var summary = nl_certificate_summary()
        return (0..<count).compactMap { index in
            guard nl_chain_certificate(chain, Int32(index), &summary) == 1 else { return nil }
            return ServerCertificate(summary)
        }
    }

    static func der(_ chain: UnsafeRawPointer) -> [Data] {
        (0..<min(Int(nl_chain_count(chain)), limit)).compactMap { index in
            var length: Int32 = 0
            guard let bytes = nl_chain_der(chain, Int32(index), &length) else { return nil }
            defer { free(bytes) }
            return Data(bytes: bytes, count: Int(length))
        }
    }
}

extension ServerCertificate {
    init(_ summary: nl_certificate_summary) {
        var summary = summary
        let digest = withUnsafeBytes(of: &summary.spki_sha256) { Data($0) }
        let subject = withUnsafeBytes(of: &summary.subject) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        let issuer = withUnsafeBytes(of: &summary.issuer) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        self.init(subject: subject, issuer: issuer,
                  notAfter: summary.not_after == Int64.min ? nil : Date(timeIntervalSince1970: TimeInterval(summary.not_after)),
                  publicKeyHash: PublicKeyPin(digest: digest).description)
    }

    /// The certificates in a file's bytes: one DER certificate, or any number of PEM ones (at most 64).
    static func read(_ data: Data) -> [ServerCertificate] {
        var summaries = [nl_certificate_summary](repeating: nl_certificate_summary(), count: HandshakeChain.limit)
        let count = data.withUnsafeBytes { bytes in
            nl_certificates_summarize(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &summaries, Int32(HandshakeChain.limit))
        }
        return summaries.prefix(Int(count)).map(ServerCertificate.init)
    }
}

extension PinningConfiguration {
    /// Reports, from inside a handshake, each covering rule the chain does not match and, on the
    /// first connection to the host and daily after, the chain's certificates that expire soon.
    func observe(chain: UnsafeRawPointer, host: String, port: Int, rules: [Rule], now: Date) {
        guard let monitor else { return }
        let certificates = HandshakeChain.certificates(chain)
        let presented = Set(certificates.map(\.publicKeyHash))
        for rule in rules {
            let expected = rule.pins.map(\.description)
            guard !expected.contains(where: presented.contains) else { continue }
            let expired = rule.expires.map { $0 <= now } ?? false
            monitor.deliver(PinningReport(kind: .mismatch, host: host, port: port, chain: certificates, expectedPins: expected,
                                          wasEnforced: rule.isEnforced(at: now), ruleExpired: expired, date: now),
                            reportURI: rule.reportURI)
        }
        guard let warning = monitor.claimExpiryCheck(host: host, port: port, now: now) else { return }
        let horizon = now.addingTimeInterval(warning.seconds)  // not `components`: it traps beyond Int64.max s
        guard certificates.contains(where: { ($0.notAfter ?? .distantFuture) < horizon }) else { return }
        monitor.deliver(PinningReport(kind: .expiringSoon, host: host, port: port, chain: certificates,
                                      expectedPins: rules.flatMap(\.pins).map(\.description), wasEnforced: false,
                                      ruleExpired: false, date: now),
                        reportURI: rules.lazy.compactMap(\.reportURI).first)
    }
}

extension ServerTrustCallback {
    /// Runs the callback on a thread of its own (not a shared pool, which a callback that blocks
    /// would starve) and waits at most `seconds` for it: a callback that throws, hangs or answers
    /// late rejects the chain.
    func decide(chain: UnsafeRawPointer, within seconds: TimeInterval) -> ServerTrustDecision {
        let certificates = HandshakeChain.der(chain)
        let answer = Protected<ServerTrustDecision?>(nil)
        let answered = DispatchSemaphore(value: 0)
        let evaluate = self.evaluate
        Thread.detachNewThread {
            let decision: ServerTrustDecision
            do {
                decision = try evaluate(certificates)
            } catch {
                decision = .reject(reason: "the callback threw \(error)")
            }
            answer.withLock { $0 = decision }
            answered.signal()
        }
        guard answered.wait(timeout: .now() + max(seconds, 0.001)) == .success, let decision = answer.withLock({ $0 }) else {
            return .reject(reason: "the callback did not answer within \(seconds.formatted()) s (the connect timeout)")
        }
        return decision
    }
}
