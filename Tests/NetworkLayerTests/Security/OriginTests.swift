import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// An origin is scheme, host and port, read by libcurl's own URL parser and normalised: the unit
/// the redirect rules keep credentials to. When in doubt two origins differ.
@Suite("Origins", .sharing)
struct OriginTests {
    @Test("Spellings of one origin are equal: case, default ports, IPv6 forms", arguments: [
        ("http://api.example.com/a", "HTTP://API.Example.COM:80/b?c"),
        ("https://api.example.com", "https://api.example.com:443/"),
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/other"),
        ("http://[::1]:8080/", "http://[0:0:0:0:0:0:0:1]:8080/"),
        ("http://[::FFFF:7F00:1]/", "http://[::ffff:127.0.0.1]:80/"),
        ("http://[2001:DB8::1]/", "http://[2001:db8:0:0:0:0:0:1]/"),
        ("http://user:pass@api.example.com/", "http://api.example.com/"),
    ])
    func sameOrigin(_ pair: (String, String)) throws {
        let (a, b) = (try #require(origin(pair.0)), try #require(origin(pair.1)))
        #expect(a == b, "\(pair.0) → \(a), \(pair.1) → \(b)")
    }

    @Test("Another scheme, port or host spelling is another origin", arguments: [
        ("https://h.example/", "http://h.example/"),
        ("https://h.example:8443/", "http://h.example:8443/"),  // same host and port, HTTPS → HTTP
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8081/"),   // CVE-2022-27776: another port of the same host
        ("http://127.0.0.1/", "http://localhost/"),
        ("http://h.example/", "http://h.example./"),
        ("http://h.example/", "http://h.example.evil.test/"),
        ("http://[::1]/", "http://127.0.0.1/"),
        ("http://[fe80::1%25eth0]/", "http://[fe80::1]/"),
        ("http://h.example:80/", "http://h.example:8080/"),
    ])
    func otherOrigin(_ pair: (String, String)) throws {
        let (a, b) = (try #require(origin(pair.0)), try #require(origin(pair.1)))
        #expect(a != b, "\(pair.0) and \(pair.1) both → \(a)")
    }

    @Test("The host is the one libcurl connects to, not what a confused reader would take it for", arguments: [
        ("http://127.0.0.1:8080@evil.example:9090/", "http://evil.example:9090/"),
        ("http://trusted.example%2eevil.example/", "http://trusted.example.evil.example/"),
        ("http://a.example#@evil.example/", "http://a.example/"),
        ("http://a.example?@evil.example/", "http://a.example/"),
    ])
    func theHostLibcurlConnectsTo(_ pair: (String, String)) throws {
        let (tricky, plain) = (try #require(origin(pair.0)), try #require(origin(pair.1)))
        #expect(tricky == plain, "\(pair.0) → \(tricky), expected \(plain)")
    }

    @Test("A URL libcurl cannot parse has no origin", arguments: ["not a url", "http://", "http://a.example:99999/", "http://a b.example/",
                                                                   "/relative/path"])
    func noOrigin(_ text: String) {
        #expect(CurlURL(text).flatMap(Origin.init) == nil)
    }

    private func origin(_ text: String) -> Origin? {
        CurlURL(text).flatMap(Origin.init)
    }
}
