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

    @Test("The prefix an origin is remembered by: scheme://authority ended by a /, with nothing parsers read apart", arguments: [
        ("http://api.example.com/a/b?c#d", "http://api.example.com"),
        ("HTTPS://API.example.com:8443/", "HTTPS://API.example.com:8443"),
        ("http://[::1]:8080/x", "http://[::1]:8080"),
        ("http://api.example.com", nil),                // no / ends it
        ("http://api.example.com?q=/x", nil),           // a query before any /
        ("http://api.example.com#/x", nil),
        ("http://user:pw@api.example.com/", nil),       // user information
        ("http://evil.test\\@api.example.com/", nil),  // a backslash some parsers read as /
        ("http://[fe80::1%25eth0]/", nil),              // an escape (a zone)
        ("http:///path", nil),                          // no authority
        ("mailto:someone@example.com", nil),
        ("http://caf\u{E9}.example/", nil),              // non-ASCII
    ] as [(String, String?)])
    func authorityPrefix(_ text: String, _ expected: String?) {
        #expect(Origin.authorityPrefix(of: text).map(String.init) == expected, "\(text)")
    }

    @Test("An origin answered from the remembered prefix is the one libcurl's parse gives, whatever came before", arguments: [
        ["http://a.example/1", "http://a.example/2?x=1", "http://b.example/3", "http://a.example:80/4", "http://A.EXAMPLE/5"],
        ["https://127.0.0.1:8443/v1/x", "https://127.0.0.1:8443/v1/y", "http://127.0.0.1:8443/v1/y", "https://127.0.0.1/v1/y"],
        ["http://[::1]:9/a", "http://[0:0:0:0:0:0:0:1]:9/b", "http://[::1]:9/c", "http://127.0.0.1:9/d"],
    ])
    func rememberedOrigins(_ urls: [String]) throws {
        for _ in 0..<2 {
            for text in urls {
                let url = try #require(URL(string: text))
                #expect(Origin(url) == origin(text), "\(text)")
            }
        }
    }

    @Test("A provider's declared scheme, host and port name an origin as libcurl would read them", arguments: [
        (ResolvedRequest.Location(scheme: .http, host: "127.0.0.1", port: nil, basePath: ""), "http://127.0.0.1/x", true),
        (ResolvedRequest.Location(scheme: .http, host: "127.0.0.1", port: 80, basePath: ""), "http://127.0.0.1/x", true),
        (ResolvedRequest.Location(scheme: .https, host: "api.example.com", port: nil, basePath: "/v1"), "https://api.example.com:443/y", true),
        (ResolvedRequest.Location(scheme: .https, host: "API.Example.com", port: nil, basePath: ""), "https://api.example.com/", true),
        (ResolvedRequest.Location(scheme: .http, host: "[0:0:0:0:0:0:0:1]", port: 8080, basePath: ""), "http://[::1]:8080/", true),
        (ResolvedRequest.Location(scheme: .http, host: "127.0.0.1", port: 8080, basePath: ""), "http://127.0.0.1:8081/", false),
        (ResolvedRequest.Location(scheme: .https, host: "127.0.0.1", port: 8080, basePath: ""), "http://127.0.0.1:8080/", false),
        (ResolvedRequest.Location(scheme: .http, host: "api.example.com", port: nil, basePath: ""), "http://api.example.com.evil.test/", false),
        (ResolvedRequest.Location(scheme: .http, host: "a b", port: nil, basePath: ""), "http://a/", false),
    ])
    func declaredOrigin(_ location: ResolvedRequest.Location, _ text: String, _ expected: Bool) throws {
        let target = try #require(origin(text))
        #expect(location.isOrigin(of: target) == expected, "\(location) and \(text)")
    }

    @Test("A host libcurl cannot write in punycode is read as given, and costs no memory: make asan's leak check watches this")
    func hostWithoutPunycode() throws {
        // U+FFFD is no letter an international name may hold: libidn2 refuses it. libcurl up to
        // 8.14 kept its copy of the host when that conversion failed (a fuzzing run found it).
        for _ in 0..<100 {
            let parsed = try #require(CurlURL("https://x\u{FFFD}y/path"))
            #expect(parsed.host == "x\u{FFFD}y")
        }
        #expect(origin("https://x\u{FFFD}y/") == origin("https://X\u{FFFD}Y:443/other"))
    }

    @Test("A prepared request's origin read from its text, as the steps per origin read it, is its parsed URL's", arguments: [
        ("127.0.0.1", 8080, "/a/b"), ("API.Example.COM", 443, "/x"), ("[::1]", 9, "/ipv6"), ("h.example", 80, "/p?q=1&r=%20"),
    ])
    func preparedRequestOrigin(_ target: (host: String, port: Int, endpoint: String)) throws {
        let provider = TestProvider(host: target.host, httpScheme: target.port == 443 ? .https : .http, port: target.port)
        let prepared = try TestRequest<Data>(provider, target.endpoint, params: ["page": 2]).resolved()
            .prepare(providerHeaders: [:], credentials: nil)
        let fromText = try #require(Origin(text: prepared.urlText))
        #expect(fromText == Origin(prepared.url), "\(prepared.urlText)")
        #expect(fromText.port == target.port)
    }

    private func origin(_ text: String) -> Origin? {
        CurlURL(text).flatMap(Origin.init)
    }
}
