import Foundation

/// How a request's connection is made (the IP family, how names resolve, Happy Eyeballs and the
/// network interface), checked when the request is prepared.
extension Settings.Table {
    /// The most either duration may be: longer is a mistake, not a policy (a DNS answer cached for
    /// a day outlives any record's TTL; a connection attempt held back a minute is a hang).
    static let dnsCacheCeiling = Duration.seconds(86_400)
    static let happyEyeballsCeiling = Duration.seconds(60)

    /// Whether connections are made as libcurl makes them by default.
    var connectsByDefault: Bool {
        ipFamily == .any && dnsCacheTimeout == nil && happyEyeballsTimeout == nil && networkInterface == nil
            && dnsOverHTTPS == nil && resolve.isEmpty
    }

    /// Whether names resolve as libcurl resolves them by default: transfers that resolve otherwise
    /// never share a DNS cache, nor connections, with them (``ConnectionCacheKey``).
    var resolvesByDefault: Bool { dnsOverHTTPS == nil && resolve.isEmpty }

    /// The resolve entries as libcurl's `CURLOPT_RESOLVE` lines, `host:port:address[,address]`,
    /// IPv6 in brackets; valid only once ``connectingProblem`` is `nil`.
    var resolveLines: [String] {
        resolve.map { entry in
            let addresses = entry.addresses.map { $0.contains(":") && !$0.hasPrefix("[") ? "[\($0)]" : $0 }
            return "\(entry.host):\(entry.port):" + addresses.joined(separator: ",")
        }
    }

    // Clamped to what `connectingProblem` allows: a copy-as-curl of a request it refuses must not trap.
    var dnsCacheSeconds: Int? { dnsCacheTimeout.map { Int(min(max($0, .zero), Self.dnsCacheCeiling).components.seconds) } }
    var happyEyeballsMilliseconds: Int? {
        happyEyeballsTimeout.map { min(max($0, .zero), Self.happyEyeballsCeiling).components }
            .map { Int($0.seconds) * 1000 + Int(($0.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000) }
    }

    /// Why the connection settings cannot be used, or `nil`.
    var connectingProblem: String? {
        if let timeout = dnsCacheTimeout, timeout < .zero || timeout > Self.dnsCacheCeiling {
            return "the DNS cache timeout must be between 0 and 1 day, not \(timeout)"
        }
        if let timeout = happyEyeballsTimeout, timeout < .zero || timeout > Self.happyEyeballsCeiling {
            return "the Happy Eyeballs timeout must be between 0 and 60 seconds, not \(timeout)"
        }
        if let name = networkInterface {
            guard !name.isEmpty, name.utf8.count <= 255, name.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                return "the network interface \"\(HeaderFields.printable(name))\" is not a name: give an interface (\"eth1\"), "
                    + "an address, or a host name, in printable ASCII without spaces"
            }
        }
        if let url = dnsOverHTTPS, let problem = Self.dnsOverHTTPSProblem(url) { return problem }
        for entry in resolve {
            if let problem = Self.resolveProblem(entry) { return problem }
        }
        return nil
    }

    private static func dnsOverHTTPSProblem(_ url: URL) -> String? {
        let text = url.absoluteString
        guard url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty, url.user == nil, url.password == nil,
              text.utf8.count <= 2048, text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            return "the DNS over HTTPS resolver \"\(HeaderFields.printable(withoutCredentials(url)))\" is not an https URL with a host "
                + "and no user name or password (\"https://dns.example/dns-query\")"
        }
        return nil
    }

    /// `url`'s text, a user name and password left out (a credential never reaches an error).
    private static func withoutCredentials(_ url: URL) -> String {
        guard url.user != nil || url.password != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.user = nil
        components.password = nil
        return components.string ?? "(a URL with credentials)"
    }

    private static func resolveProblem(_ entry: ResolveEntry) -> String? {
        let names = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-."
        let host = entry.host
        guard !host.isEmpty, host.utf8.count <= 253, host.first != "-", host.first != ".",
              host.unicodeScalars.allSatisfy({ names.unicodeScalars.contains($0) }) else {
            return "the resolve entry's host \"\(HeaderFields.printable(host))\" is not a host name (letters, digits, '-' and '.')"
        }
        guard (1...65535).contains(entry.port) else {
            return "the resolve entry for \(host) has the port \(entry.port); a port is 1...65535"
        }
        guard !entry.addresses.isEmpty, entry.addresses.count <= 64 else {
            return "the resolve entry for \(host):\(entry.port) has \(entry.addresses.count) addresses; give 1 to 64"
        }
        for address in entry.addresses where !isIPAddress(address) {
            return "the resolve entry for \(host):\(entry.port) has \"\(HeaderFields.printable(address))\", "
                + "which is not an IPv4 or IPv6 address"
        }
        return nil
    }

    /// Whether `text` is an IPv4 address, or an IPv6 one with or without brackets.
    static func isIPAddress(_ text: String) -> Bool {
        var bare = Substring(text)
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = bare.dropFirst().dropLast() }
        guard !bare.isEmpty, bare.utf8.count < 64 else { return false }
        var buffer = [UInt8](repeating: 0, count: 16)
        return String(bare).withCString { address in
            inet_pton(AF_INET, address, &buffer) == 1 || inet_pton(AF_INET6, address, &buffer) == 1
        }
    }
}
