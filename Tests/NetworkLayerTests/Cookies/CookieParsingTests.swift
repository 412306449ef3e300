import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Reading libcurl's cookie list (Netscape lines, whose values servers chose) and matching cookies
/// to URLs for `cookies(for:)`.
@Suite("Cookie lines and matching", .sharing)
struct CookieParsingTests {
    @Test("A Netscape line reads into a Cookie: host-only, subdomains, HttpOnly, Secure, expiry, tabs in the value")
    func lines() {
        #expect(Cookie(netscapeLine: "example.com\tFALSE\t/\tFALSE\t0\tsid\tabc")
                == Cookie(name: "sid", value: "abc", domain: "example.com"))
        #expect(Cookie(netscapeLine: "#HttpOnly_.example.com\tTRUE\t/api\tTRUE\t1700000000\tsid\ta\tb")
                == Cookie(name: "sid", value: "a\tb", domain: ".example.com", path: "/api",
                          expires: Date(timeIntervalSince1970: 1_700_000_000), isSecure: true, isHTTPOnly: true))
        #expect(Cookie(netscapeLine: "example.com\tFALSE\t/\tFALSE\t0\tempty")?.value == "")
        #expect(Cookie(netscapeLine: "example.com\tFALSE\t/\tFALSE\t99999999999999999999\tbig\t1")?.expires != nil)
        for line in ["", "# Netscape HTTP Cookie File", "example.com", "\tFALSE\t/\tFALSE\t0\tn\tv",
                     "example.com\tFALSE\t/\tFALSE\t0\t\tv", ".\tTRUE\t/\tFALSE\t0\tn\tv"] {
            #expect(Cookie(netscapeLine: line) == nil, "\(line)")
        }
    }

    @Test("Hostile lines never trap (property test over random bytes and fields)")
    func hostileLines() {
        var random = SeededRandom(seed: 15)
        let pieces = ["\t", "#HttpOnly_", ".", "TRUE", "FALSE", "/", "-1", "9223372036854775807", "-9223372036854775808",
                      "\u{0}", "é", "\r\n", "=", ";", "", "1e308", "NaN"]
        for _ in 0..<5_000 {
            var line = ""
            for _ in 0..<Int.random(in: 0...14, using: &random) {
                line += Bool.random(using: &random) ? pieces.randomElement(using: &random) ?? ""
                    : String(UnicodeScalar(UInt8.random(in: 0...255, using: &random)))
            }
            if let cookie = Cookie(netscapeLine: line) {
                _ = cookie.applies(to: URL(string: "https://example.com/a/b")!)
                #expect(!cookie.name.isEmpty && !cookie.domain.isEmpty)
            }
        }
    }

    @Test("Matching follows curl: domain or subdomain, path prefix on a / boundary, expiry, Secure only for https or localhost")
    func matching() {
        let host = Cookie(name: "a", value: "1", domain: "example.com")
        #expect(host.applies(to: URL(string: "http://example.com/x")!))
        #expect(!host.applies(to: URL(string: "http://api.example.com/")!))
        #expect(!host.applies(to: URL(string: "http://notexample.com/")!))
        let domain = Cookie(name: "a", value: "1", domain: ".example.com")
        #expect(domain.applies(to: URL(string: "http://api.example.com/")!))
        #expect(domain.applies(to: URL(string: "http://EXAMPLE.com/")!))
        #expect(!domain.applies(to: URL(string: "http://badexample.com/")!))
        let path = Cookie(name: "a", value: "1", domain: "example.com", path: "/api")
        #expect(path.applies(to: URL(string: "http://example.com/api")!))
        #expect(path.applies(to: URL(string: "http://example.com/api/v1")!))
        #expect(!path.applies(to: URL(string: "http://example.com/apiary")!))
        #expect(!path.applies(to: URL(string: "http://example.com/")!))
        let expired = Cookie(name: "a", value: "1", domain: "example.com", expires: Date(timeIntervalSinceNow: -1))
        #expect(!expired.applies(to: URL(string: "http://example.com/")!))
        let secure = Cookie(name: "a", value: "1", domain: "example.com", isSecure: true)
        #expect(secure.applies(to: URL(string: "https://example.com/")!))
        #expect(!secure.applies(to: URL(string: "http://example.com/")!))
        #expect(Cookie(name: "a", value: "1", domain: "localhost", isSecure: true).applies(to: URL(string: "http://localhost:8080/")!))
    }
}
