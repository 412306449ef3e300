import Foundation
@testable import NetworkLayer

/// What pinning reads from outside: certificate bytes (a file the pins tool or a rule names, parsed
/// by OpenSSL into the chain a report shows) and a report's JSON (what a report URI receives and a
/// collector decodes).
///
/// Checked: reading never traps; at most 64 certificates come back, each with a pin that parses
/// as one; a report that decodes encodes and decodes to itself, and its log line holds no raw
/// control character, whatever the subject, issuer or host says.
enum PinningReportFuzz {
    static func check(_ data: Data) throws(FuzzFailure) {
        let certificates = ServerCertificate.read(data)
        try require(certificates.count <= HandshakeChain.limit, "\(certificates.count) certificates read, over the limit")
        for certificate in certificates {
            try require((try? PublicKeyPin(certificate.publicKeyHash)) != nil, "\(certificate.publicKeyHash) is not a pin")
        }

        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let report = try? decoder.decode(PinningReport.self, from: data) else { return }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        guard let encoded = try? encoder.encode(report) else {
            throw FuzzFailure("a decoded report does not encode: \(report)")
        }
        let again = try? decoder.decode(PinningReport.self, from: encoded)
        // ISO 8601 keeps whole seconds: compare the rest, and dates to the second.
        try require(again.map { Self.sameButDates($0, report) } == true, "a report does not round-trip: \(report)")
        try require(!report.description.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
                    "the log line of a report holds a control character: \(report.description.debugDescription)")
    }

    private static func sameButDates(_ lhs: PinningReport, _ rhs: PinningReport) -> Bool {
        lhs.kind == rhs.kind && lhs.host == rhs.host && lhs.port == rhs.port && lhs.expectedPins == rhs.expectedPins
            && lhs.wasEnforced == rhs.wasEnforced && lhs.ruleExpired == rhs.ruleExpired
            && lhs.chain.map(\.publicKeyHash) == rhs.chain.map(\.publicKeyHash)
            && lhs.chain.map(\.subject) == rhs.chain.map(\.subject) && lhs.chain.map(\.issuer) == rhs.chain.map(\.issuer)
    }
}
