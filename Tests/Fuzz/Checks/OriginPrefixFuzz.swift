import Foundation
@testable import NetworkLayer

/// The origin a URL's `scheme://authority/` prefix stands for (``Origin/authorityPrefix(of:)``):
/// `Origin(_:)` answers a URL whose prefix it has seen from the origin it remembered, without
/// libcurl's parse. Sound only if nothing after the `/` that ends such a prefix changes what
/// libcurl reads as the origin: that is what this checks, on URLs made from parts that confuse
/// readers (user information, `@`, `\`, `%`, odd ports, IPv6 spellings, `?` and `#` in odd places)
/// and on any bytes.
///
/// Checked: the prefix function never traps; a prefix is a prefix of the text, followed by `/`;
/// when libcurl reads an origin in the text, it reads the same one in the prefix followed by `/`;
/// and `Origin(_:)`, remembered prefix or not, gives what libcurl's own parse of the URL gives.
enum OriginPrefixFuzz {
    private static let schemes = ["http", "https", "HTTP", "hTTps", "ftp", "ws", "h+t-t.p", ""]
    private static let hosts = ["api.example.com", "API.Example.COM", "api.example.com.", "127.0.0.1", "127.1", "0x7f.1",
                                "2130706433", "[::1]", "[0:0:0:0:0:0:0:1]", "[::FFFF:7F00:1]", "[fe80::1%25eth0]", "localhost",
                                "a.b-c.example", "xn--bcher-kva.example", "b\u{FC}cher.example", "", "evil.test@api.example.com",
                                "api.example.com\\@evil.test", "api.example.com%2f.evil.test", "a b", "[::1"]
    private static let userInfos = ["", "", "", "user:pw@", "user@", "@", "a%40b@", "api.example.com@", ":@"]
    private static let ports = ["", "", ":80", ":443", ":8080", ":0", ":65535", ":65536", ":0080", ":+80", ":80a", ":", ":99999999999"]
    private static let tails = ["/", "/x", "/x?y=1#z", "/a/../b", "/@evil.test", "/%2e%2e/", "/\\evil.test", "//evil.test/x",
                                "/?q=@evil.test#@x", "/x y", "/\u{0}", "/caf\u{E9}", "?x=/y", "#/y", "", "\\x"]

    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        let text: String
        if bytes.choice(4) == 0 {
            text = String(decoding: bytes.take(bytes.choice(120)), as: UTF8.self)
        } else {
            text = schemes[bytes.choice(schemes.count)] + ["://", "://", ":/", ":"][bytes.choice(4)]
                + userInfos[bytes.choice(userInfos.count)] + hosts[bytes.choice(hosts.count)]
                + ports[bytes.choice(ports.count)] + tails[bytes.choice(tails.count)] + tails[bytes.choice(tails.count)]
        }
        guard let prefix = Origin.authorityPrefix(of: text) else { return try checkRemembered(text) }
        try require(text.hasPrefix(prefix) && text.utf8.dropFirst(prefix.utf8.count).first == UInt8(ascii: "/"),
                    "the prefix \(prefix.debugDescription) of \(text.debugDescription) is not followed by a /")
        let whole = parsedOrigin(text)
        let remembered = parsedOrigin(String(prefix) + "/")
        if let whole {
            try require(remembered == whole, "libcurl reads \(text.debugDescription) as \(whole), its prefix "
                        + "\(prefix.debugDescription) as \(String(describing: remembered))")
        }
        try checkRemembered(text)
    }

    /// `Origin(_:)`, answered from the remembered prefix or not, is libcurl's parse of the URL.
    private static func checkRemembered(_ text: String) throws(FuzzFailure) {
        guard let url = URL(string: text), let parsed = parsedOrigin(url.absoluteString) else { return }
        for _ in 0..<2 {
            let origin = Origin(url)
            try require(origin == parsed, "Origin(\(url.absoluteString.debugDescription)) is \(String(describing: origin)); libcurl reads \(parsed)")
        }
    }

    private static func parsedOrigin(_ text: String) -> Origin? {
        CurlURL(text).flatMap(Origin.init)
    }
}
