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
        self.init(text: url.absoluteString)
    }

    /// The origin of a URL's text, read as libcurl reads it: the steps that count per origin read a
    /// prepared request's `urlText`, which libcurl is given, without Foundation parsing it first.
    init?(text: String) {
        let prefix = Self.authorityPrefix(of: text)
        if let prefix, let recent = Self.recent.withLock({ $0 }), recent.prefix == prefix {
            self = recent.origin
            return
        }
        guard let parsed = CurlURL(text) else { return nil }
        self.init(parsed)
        if let prefix { Self.recent.withLock { $0 = (String(prefix), self) } }
    }

    /// The `scheme://authority` prefix of the URL parsed last, and its origin: a client's requests
    /// mostly go to one server, and nothing after the `/` that ends an authority changes the origin.
    private static let recent = Protected<(prefix: String, origin: Origin)?>(nil)

    /// `scheme://authority` when a `/` ends it and the authority holds only what every URL parser
    /// reads alike (no `\`, `@`, `%`, space, control or non-ASCII byte); otherwise `nil`: parse it all.
    static func authorityPrefix(of text: String) -> Substring? {
        var text = text  // withUTF8 needs a mutable copy; a native string is not copied
        guard let end = text.withUTF8(authorityEnd) else { return nil }
        return text[..<text.utf8.index(text.utf8.startIndex, offsetBy: end)]
    }

    /// The offset of the `/` that ends `bytes`' authority under ``authorityPrefix(of:)``'s rules.
    /// On the bytes themselves: every request to a full URL pays for this.
    private static func authorityEnd(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              bytes[..<colon].allSatisfy({ Self.schemeBytes.contains($0) }),
              bytes.count - colon > 3, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        let authorityStart = colon + 3
        for index in authorityStart..<bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/") { return index == authorityStart ? nil : index }
            guard byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "\\"), byte != UInt8(ascii: "@"), byte != UInt8(ascii: "%"),
                  byte != UInt8(ascii: "?"), byte != UInt8(ascii: "#") else { return nil }
        }
        return nil
    }

    private static let schemeBytes = ASCIISet("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.")

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
