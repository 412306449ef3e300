internal import CNetworkLayerCurl
import Foundation
import Synchronization

/// Pinning rules resolved to digests, as the transfers use them. Immutable; a new configuration
/// gets a new `generation`, so connections opened under an older one are never reused.
struct PinningConfiguration: Sendable {
    struct Rule: Sendable {
        /// Lowercased patterns, or `nil` for every host.
        let hosts: [String]?
        let pins: [PublicKeyPin]
        let enforcement: PinningRule.Enforcement
        let expires: Date?
        let reportURI: URL?

        /// Whether a mismatch refuses the connection at `date`: enforced and not expired.
        func isEnforced(at date: Date) -> Bool {
            enforcement == .enforce && expires.map { date < $0 } ?? true
        }

        func covers(_ host: String) -> Bool {
            hosts?.contains(where: { PinningConfiguration.matches(pattern: $0, host: host) }) ?? true
        }
    }

    let rules: [Rule]
    let isEnabled: Bool
    let generation: Int
    /// Where reports go: the manager's stream, log, counter and report URIs.
    let monitor: PinningMonitor?

    private static let generations = Atomic<Int>(0)

    init(_ rules: [PinningRule], certificatesDirectory: URL, isEnabled: Bool, monitor: PinningMonitor? = nil) throws(NetworkError) {
        var resolved: [Rule] = []
        for rule in rules {
            var pins: [PublicKeyPin] = []
            for text in rule.publicKeyHashes { pins.append(try PublicKeyPin(text)) }
            for certificate in rule.certificates {
                pins += try Self.pins(of: certificate, in: certificatesDirectory)
            }
            // Enforced pins fail closed: a rule without any would pin nothing.
            guard !pins.isEmpty || !isEnabled else {
                throw .invalidCertificate(.init(reason: "a pinning rule has no pins; give public-key hashes or certificates "
                                                + "(or pass isEnabled: false to turn pinning off)"))
            }
            var distinct: [PublicKeyPin] = []
            for pin in pins where !distinct.contains(pin) { distinct.append(pin) }
            let named = (rule.hosts?.joined(separator: ", ")).map { "the pinning rule for " + HeaderFields.printable($0) } ?? "the pinning rule for every host"
            if !rule.allowsSinglePin && !distinct.isEmpty && distinct.count < 2 {
                let why = pins.count >= 2 ? "its pins are the same key \(pins.count) times" : "it has one pin"
                throw .invalidCertificate(.init(reason: "\(named) needs a backup pin, and \(why): when the pinned certificate "
                                                + "rotates, only a second key (the next certificate's, or the intermediate's) keeps the host "
                                                + "reachable; add one, or pass allowsSinglePin: true"))
            }
            if let reportURI = rule.reportURI,
               reportURI.host?.isEmpty != false || !["http", "https"].contains(reportURI.scheme?.lowercased() ?? "") {
                throw .invalidCertificate(.init(reason: "\(named) has a report URI that is not an http or https URL with a host"))
            }
            var hosts: [String]?
            if let patterns = rule.hosts {
                hosts = []
                for pattern in patterns { hosts?.append(try Self.validated(pattern)) }
            }
            resolved.append(Rule(hosts: hosts, pins: distinct, enforcement: rule.enforcement, expires: rule.expires,
                                 reportURI: rule.reportURI))
            if isEnabled, let monitor {
                if distinct.count < 2 { monitor.warn("\(named) has a single pin and no backup: a rotation of that key makes the host unreachable") }
                if let expires = rule.expires, expires <= Date() {
                    monitor.warn("\(named) expired on \(PinningReport.day(expires)): its pins are reported, not enforced")
                }
            }
        }
        self.rules = resolved
        self.isEnabled = isEnabled
        self.monitor = monitor
        generation = Self.generations.add(1, ordering: .relaxed).newValue
    }

    /// The pins a connection to `host` must match now; empty when no enforced rule covers the host.
    func pins(forHost host: String) -> [PublicKeyPin] {
        let host = Self.normalized(host)
        let now = Date()
        var pins: [PublicKeyPin] = []
        for rule in rules where rule.isEnforced(at: now) && rule.covers(host) { pins += rule.pins }
        return pins
    }

    /// Every rule that covers `host`, enforced, report-only or expired.
    func rules(forHost host: String) -> [Rule] {
        let host = Self.normalized(host)
        return rules.filter { $0.covers(host) }
    }

    static func normalized(_ host: String) -> String {
        host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    }

    static func matches(pattern: String, host: String) -> Bool {
        if pattern.hasPrefix("**.") {
            let suffix = pattern.dropFirst(3)
            return host == suffix || host.hasSuffix("." + suffix)
        }
        if pattern.hasPrefix("*.") {
            let suffix = pattern.dropFirst(2)
            guard host.hasSuffix("." + suffix) else { return false }
            let label = host.dropLast(suffix.count + 1)
            return !label.isEmpty && !label.contains(".")
        }
        return host == pattern
    }

    private static func validated(_ pattern: String) throws(NetworkError) -> String {
        let lower = pattern.lowercased()
        var name = Substring(lower)
        if name.hasPrefix("**.") { name = name.dropFirst(3) } else if name.hasPrefix("*.") { name = name.dropFirst(2) }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-.:")
        guard !name.isEmpty, name.allSatisfy(allowed.contains), !name.contains("..") else {
            throw .invalidCertificate(.init(reason: "\"\(pattern)\" is not a host pattern (use api.example.com, "
                                            + "*.example.com or **.example.com)"))
        }
        return lower
    }

    /// The pins of every certificate in a file (DER, or PEM with one or more certificates).
    static func pins(of certificate: CertificateModel, in directory: URL) throws(NetworkError) -> [PublicKeyPin] {
        let url = directory.appendingPathComponent(certificate.fileName)
        let data: Data
        do {
            // Through FileHandle: Foundation's Data(contentsOf:) leaks a page per empty file it reads.
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw .invalidCertificate(.init(reason: "the certificate file \(url.path) could not be read "
                                            + "(\(FileManager.default.fileExists(atPath: url.path) ? "unreadable" : "no such file"))",
                                            underlyingError: error))
        }
        let capacity = 64
        var digests = [UInt8](repeating: 0, count: capacity * Int(NL_PIN_LENGTH))
        let count = data.withUnsafeBytes { bytes in
            nl_spki_sha256_of_certificates(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &digests, Int32(capacity))
        }
        guard count > 0 else {
            throw .invalidCertificate(.init(reason: "\(url.path) holds no certificate (expected DER or PEM)"))
        }
        return (0..<Int(count)).map { index in
            let start = index * Int(NL_PIN_LENGTH)
            return PublicKeyPin(digest: Data(digests[start..<start + Int(NL_PIN_LENGTH)]))
        }
    }
}
