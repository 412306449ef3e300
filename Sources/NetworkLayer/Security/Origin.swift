import Foundation

/// Where a request's credentials may go: scheme, host and port, as libcurl will connect to them.
///
/// Equal when all three are, after normalising spellings of one place (case, a defaulted port,
/// a canonical IPv6 address, punycode). Anything else differs, `localhost` versus `127.0.0.1`
/// included: when in doubt two origins differ, which only ever keeps a credential at home. The
/// parsing is libcurl's (``CurlURL``), so the origin is where libcurl connects (comparing hosts
/// alone sent credentials to another port in curl's CVE-2022-27776).
struct Origin: Hashable, Sendable, CustomStringConvertible {
    /// Lowercased.
    let scheme: String
    /// Lowercased ASCII; an IPv6 address canonical and in brackets, with its zone after `%`.
    let host: String
    /// The scheme's default when the URL names none.
    let port: Int

    /// The origin of `url`, or `nil` when libcurl cannot parse it, or it names no host or no port.
    init?(_ url: URL) {
        guard let parsed = CurlURL(url.absoluteString) else { return nil }
        self.init(parsed)
    }

    /// The origin of a URL libcurl parsed, or `nil` when it names no host or no port.
    init?(_ url: CurlURL) {
        guard let scheme = url.scheme, let host = url.host, !host.isEmpty, let port = url.port else { return nil }
        self.scheme = SecretNames.folded(scheme)
        self.host = Self.normalised(host: host, zoneID: url.zoneID)
        self.port = port
    }

    var description: String {
        "\(scheme)://\(host):\(port)"
    }

    /// ASCII lowercase; an IPv6 literal rewritten canonically (`inet_pton` then `inet_ntop`).
    static func normalised(host: String, zoneID: String?) -> String {
        let lower = SecretNames.folded(host)
        guard lower.hasPrefix("["), lower.hasSuffix("]") else { return lower }
        var address = String(lower.dropFirst().dropLast())
        var zone = zoneID.map(SecretNames.folded)
        if let percent = address.firstIndex(of: "%") {
            // A zone libcurl left in the host: take it from there.
            if zone == nil { zone = String(address[address.index(after: percent)...]) }
            address = String(address[..<percent])
        }
        var bytes = in6_addr()
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if inet_pton(AF_INET6, address, &bytes) == 1, inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count)) != nil {
            address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return "[" + address + (zone.map { "%" + $0 } ?? "") + "]"
    }
}
