import Foundation
import NetworkLayer

// networklayer-pins: the chain a server presents, read through NetworkManager.serverCertificates
// (the handshake and verification every request goes through), so the pins it prints are the ones
// the library compares. Exit status: 0 listed or would pass, 1 would fail, 2 bad input.

/// Text from a certificate reaches the terminal with its control and format characters escaped.
func printable(_ text: String) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
        if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.properties.generalCategory == .format {
            escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        } else {
            escaped.unicodeScalars.append(scalar)
        }
    }
    return escaped
}

/// Bad input: one line on standard error, exit status 2.
struct Failure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

func day(_ date: Date) -> String {
    date.formatted(Date.ISO8601FormatStyle().year().month().day())
}

func expiry(_ date: Date?, now: Date) -> String {
    guard let date else { return "unknown (the date could not be read)" }
    guard date > now else { return "\(day(date)) EXPIRED" }
    let days = Int(date.timeIntervalSince(now) / 86_400)
    return "\(day(date)) (\(days) day\(days == 1 ? "" : "s") left)"
}

/// What a certificate is in a server's chain, leaf first.
func role(_ index: Int, in chain: [ServerCertificate]) -> String {
    let selfIssued = chain[index].subject == chain[index].issuer
    if index == 0 { return chain.count == 1 && selfIssued ? "leaf, self-signed" : "leaf" }
    return index == chain.count - 1 && selfIssued ? "root" : "intermediate"
}

func list(_ certificates: [ServerCertificate], fromServer: Bool, now: Date) {
    for (index, certificate) in certificates.enumerated() {
        print("\(index + 1)" + (fromServer ? " (\(role(index, in: certificates)))" : ""))
        print("  subject   \(printable(certificate.subject))")
        print("  issuer    \(printable(certificate.issuer))")
        print("  notAfter  \(expiry(certificate.notAfter, now: now))")
        print("  pin       \(certificate.publicKeyHash)")
    }
}

let backupKeyCommands = """
        openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out backup.key
        openssl pkey -in backup.key -pubout -outform DER | openssl dgst -sha256 -binary | base64
    """

/// `1828137600` as Swift writes it readably: `1_828_137_600`.
func swiftLiteral(_ number: Int) -> String {
    var digits = ""
    for (index, digit) in String(number).reversed().enumerated() {
        if index > 0, index % 3 == 0 { digits.append("_") }
        digits.append(digit)
    }
    return String(digits.reversed())
}

/// A report-only rule pinning the leaf and, as its backup, the leaf's issuer (or a key to make).
func suggest(for certificates: [ServerCertificate], hosts: [String], now: Date) {
    let leaf = certificates[0]
    let backup = certificates.count > 1 ? certificates[1] : nil
    // A year from today, or the backup's end if sooner: the rule must not outlive what it pins.
    let end = min(now.addingTimeInterval(365 * 86_400), backup?.notAfter ?? .distantFuture)
    let expires = (end.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400
    let hostList = hosts.map { "\"\(printable($0))\"" }.joined(separator: ", ")
    let backupLine = backup.map { "\"\($0.publicKeyHash)\"],  // 2: \(printable($0.subject)), the backup" }
        ?? "\"sha256/<the backup key's pin>\"],  // a key of your own, made as below"
    print("""

        Suggested rule (report-only: a mismatch is reported, not refused; switch to .enforce once reports stay quiet):

            PinningRule(hosts: [\(hostList)],
                        publicKeyHashes: ["\(leaf.publicKeyHash)",  // 1: \(printable(leaf.subject))
                                          \(backupLine)
                        enforcement: .reportOnly,
                        expires: Date(timeIntervalSince1970: \(swiftLiteral(Int(expires)))))  // \(day(Date(timeIntervalSince1970: expires)))

        """)
    if backup != nil {
        print("""
            The issuer's pin is the backup: it survives a leaf rotation under the same CA. To make a second
            key of your own the backup instead (the key the next certificate will use), pin what this prints:
            \(backupKeyCommands)
            """)
    } else {
        print("""
            The chain has a single certificate: its rotation would lock the app out, so a rule needs a
            backup key of your own (the key the next certificate will use). Pin what this prints:
            \(backupKeyCommands)
            """)
    }
    print("The rule expires on \(day(Date(timeIntervalSince1970: expires))) (a year from today, or the backup's end): "
          + "past it, a mismatch is reported, not refused.")
}

/// Whether a rule with `pins` would let `certificates` through: the library's comparison, any
/// pin matching any certificate of the chain.
func check(_ pins: [PublicKeyPin], against certificates: [ServerCertificate], presenter: String) -> Int32 {
    var passed = false
    for (index, certificate) in certificates.enumerated() {
        guard let presented = try? PublicKeyPin(certificate.publicKeyHash), pins.contains(presented) else { continue }
        print("would pass: \(presented) matches certificate \(index + 1) (\(printable(certificate.subject)))")
        passed = true
    }
    guard !passed else { return 0 }
    let none = pins.count == 1 ? "the pin matches no certificate" : "none of the \(pins.count) pins matches"
    print("would fail: \(none); \(presenter) " + certificates.map(\.publicKeyHash).joined(separator: ", "))
    return 1
}

/// A host pattern as ``PinningRule/hosts`` reads it: a name, `*.` one more label, `**.` any depth.
func covers(_ pattern: String, _ host: String) -> Bool {
    let pattern = pattern.lowercased(), host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    if pattern.hasPrefix("**.") { return host == pattern.dropFirst(3) || host.hasSuffix(pattern.dropFirst(2)) }
    if pattern.hasPrefix("*.") {
        let suffix = pattern.dropFirst(1)
        return host.hasSuffix(suffix) && host.count > suffix.count && !host.dropLast(suffix.count).contains(".")
    }
    return host == pattern
}

// Everything runs in `run()` and the process exits only after it returned: objects still held by
// top-level code when `exit` is called are reported as leaks by the address sanitizer's check.
func run() async throws(Failure) -> Int32 {
    let arguments = CommandLine.arguments.dropFirst()
    if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
        let text = usage + "\n"
        if arguments.isEmpty { FileHandle.standardError.write(Data(text.utf8)); return 2 }
        print(text, terminator: "")
        return 0
    }
    let options: Options
    do { options = try Options(arguments) } catch { throw Failure(error.message) }

    // The pins and patterns to check go through the library's own validation.
    var checkedPins: [PublicKeyPin] = []
    do {
        for text in options.checks { checkedPins.append(try PublicKeyPin(text)) }
        let validator = NetworkManager()
        validator.isVerbose = false
        try validator.configurePinning([PinningRule(hosts: options.hosts.isEmpty ? nil : options.hosts, publicKeyHashes: options.checks,
                                                    enforcement: .reportOnly, allowsSinglePin: true)], isEnabled: false)
    } catch {
        throw Failure(error.context?.reason ?? error.description)
    }

    let now = Date()
    let certificates: [ServerCertificate]
    let host: String?
    switch options.source {
    case .server(let url):
        let net = NetworkManager()
        net.isVerbose = false
        net.timeouts = Timeouts(connect: .seconds(10), request: .seconds(30))
        do {
            certificates = try await net.serverCertificates(of: url, trustedCertificates: options.trustedCertificates)
        } catch {
            throw Failure([error.errorDescription, error.recoverySuggestion].compactMap { $0 }.joined(separator: " "))
        }
        guard !certificates.isEmpty else { throw Failure("\(url.absoluteString) presented no certificate the library could read") }
        host = url.host
        let trust = options.trustedCertificates.map { "the CAs in \($0.relativePath)" } ?? "the system's trusted CAs"
        print("\(printable(url.absoluteString)) presents \(certificates.count) certificate\(certificates.count == 1 ? "" : "s"), "
              + "leaf first, verified against \(trust):")
    case .file(let file):
        let data: Data
        do { data = try FileHandle(forReadingFrom: file).readToEnd() ?? Data() } catch { throw Failure("--file \(file.relativePath): \(error.localizedDescription)") }
        certificates = ServerCertificate.certificates(in: data)
        guard !certificates.isEmpty else { throw Failure("--file \(file.relativePath) holds no certificate (DER, or PEM \"BEGIN CERTIFICATE\" blocks)") }
        host = nil
        print("\(printable(file.relativePath)) holds \(certificates.count) certificate\(certificates.count == 1 ? "" : "s"):")
    }
    list(certificates, fromServer: host != nil, now: now)

    guard !options.checks.isEmpty else {
        suggest(for: certificates, hosts: options.hosts.isEmpty ? [host ?? "api.example.com"] : options.hosts, now: now)
        return 0
    }
    print("")
    if let host, !options.hosts.isEmpty, !options.hosts.contains(where: { covers($0, host) }) {
        print("would not apply: none of the hosts \(options.hosts.map(printable).joined(separator: ", ")) covers \(printable(host)), "
              + "so its connections are not pinned")
        return 1
    }
    return check(checkedPins, against: certificates, presenter: host == nil ? "the file holds" : "the server presents")
}

let status: Int32
do {
    status = try await run()
} catch {
    FileHandle.standardError.write(Data(("networklayer-pins: " + printable(error.message) + "\n").utf8))
    status = 2
}
exit(status)
