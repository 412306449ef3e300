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
    }

    let rules: [Rule]
    let isEnabled: Bool
    let generation: Int

    private static let generations = Atomic<Int>(0)

    init(_ rules: [PinningRule], certificatesDirectory: URL, isEnabled: Bool) throws(NetworkError) {
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
            var hosts: [String]?
            if let patterns = rule.hosts {
                hosts = []
                for pattern in patterns { hosts?.append(try Self.validated(pattern)) }
            }
            resolved.append(Rule(hosts: hosts, pins: pins))
        }
        self.rules = resolved
        self.isEnabled = isEnabled
        generation = Self.generations.add(1, ordering: .relaxed).newValue
    }

    /// The pins a connection to `host` must match; empty when no rule covers the host.
    func pins(forHost host: String) -> [PublicKeyPin] {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        var pins: [PublicKeyPin] = []
        for rule in rules where rule.hosts?.contains(where: { Self.matches(pattern: $0, host: host) }) ?? true {
            pins += rule.pins
        }
        return pins
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
