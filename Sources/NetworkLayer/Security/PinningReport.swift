import Foundation

/// A certificate of a server's verified chain, as the pins are compared with it.
public struct ServerCertificate: Sendable, Hashable, Codable {
    /// The subject, in OpenSSL's one-line form (`/CN=api.example.com/O=Example`). From the server:
    /// print it escaped, as the log does.
    public var subject: String
    /// The issuer, in the same form.
    public var issuer: String
    /// When the certificate stops being valid; `nil` when its date could not be read.
    public var notAfter: Date?
    /// Its pin: `sha256/<base64>` of the SubjectPublicKeyInfo, as ``PinningRule/publicKeyHashes`` takes it.
    public var publicKeyHash: String

    public init(subject: String, issuer: String, notAfter: Date?, publicKeyHash: String) {
        self.subject = subject
        self.issuer = issuer
        self.notAfter = notAfter
        self.publicKeyHash = publicKeyHash
    }
}

/// What a pinned connection showed that its rule did not expect: a mismatch (enforced or not), or
/// a certificate of the matched chain that expires soon. It names no request, header or body.
public struct PinningReport: Sendable, Hashable, Codable {
    /// Why the report was made.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// No key of the verified chain matched the rule's pins.
        case mismatch
        /// A certificate of the chain expires within ``NetworkManager/pinExpiryWarning``.
        case expiringSoon
    }

    public var kind: Kind
    /// The host and port of the connection.
    public var host: String
    public var port: Int
    /// The verified chain, leaf first (at most 64 certificates).
    public var chain: [ServerCertificate]
    /// The rule's pins.
    public var expectedPins: [String]
    /// Whether the connection was refused for it (`false` for a report-only or expired rule).
    public var wasEnforced: Bool
    /// Whether the rule was past its ``PinningRule/expires`` date.
    public var ruleExpired: Bool
    /// When the handshake saw it.
    public var date: Date

    public init(kind: Kind, host: String, port: Int, chain: [ServerCertificate], expectedPins: [String],
                wasEnforced: Bool, ruleExpired: Bool, date: Date) {
        self.kind = kind
        self.host = host
        self.port = port
        self.chain = chain
        self.expectedPins = expectedPins
        self.wasEnforced = wasEnforced
        self.ruleExpired = ruleExpired
        self.date = date
    }
}

extension PinningReport: CustomStringConvertible {
    /// One line for the log, every part from the server escaped.
    public var description: String {
        let chainText = chain.map { certificate in
            let expiry = certificate.notAfter.map { " until " + PinningReport.day($0) } ?? ""
            return certificate.subject + " " + certificate.publicKeyHash + expiry
        }.joined(separator: "; ")
        let what = switch kind {
        case .mismatch: wasEnforced ? "pin mismatch, connection refused" : "pin mismatch, not enforced" + (ruleExpired ? " (the rule expired)" : " (report-only)")
        case .expiringSoon: "a pinned chain expires soon"
        }
        // Escaped whole: every part but `what` may come from a server (or a decoded report).
        return "\(what): \(host):\(port) presented [\(chainText)], expected \(expectedPins.joined(separator: ", "))".escapingControlCharacters
    }

    static func day(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle().year().month().day())
    }
}

/// Every ``PinningReport`` of a manager from the moment the sequence is iterated: each iterator
/// gets its own copy of each report. An iterator that falls behind keeps the newest 256.
public struct PinningReports: AsyncSequence, Sendable {
    public typealias Element = PinningReport
    let monitor: PinningMonitor

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<PinningReport>.Iterator

        public mutating func next() async -> PinningReport? {
            await base.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: monitor.subscribe().makeAsyncIterator())
    }
}
