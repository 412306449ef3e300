import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A request carries its URL as text and parses it only when someone reads `url`. That is safe
/// only for text `URL(string:)` takes exactly as written: `URLText.isPlainHTTP` must accept no
/// other, and every other URL still goes through `URL(string:)` when the request is prepared.
@Suite("URL text without Foundation's parser", .sharing)
struct URLTextTests {
    /// Pieces that make texts on both sides of the line: the usual ones, and valid and broken
    /// escapes, a second `#`, characters Foundation re-encodes, IPv6 brackets, ports out of range,
    /// odd schemes. Each text takes an odd piece with a chance of 0, 3 or 20 % per piece.
    static let schemes = (usual: ["http://", "https://"], odd: ["HTTP://", "ftp://", "http:/", "http:", "", "https:///"])
    static let hostPieces = (usual: ["a", "example", "127", ".", "-", "0", "Z", "xn--b"],
                             odd: ["[", "]", ":", "%", "_", " ", "ä", "@", "::1", "%25"])
    static let portPieces = (usual: ["", "", ":1", ":80", ":8080", ":65535", ":080"],
                             odd: [":", ":0", ":65536", ":99999", ":x", ":123456", ":-1"])
    static let restPieces = (usual: ["/", "/", "a", "Z", "0", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",",
                                     ";", "=", ":", "@", "?", "?", "#", "%41", "%2f", "%Ab", "..", "//"],
                             odd: ["%zz", "%", "%4", "%g1", " ", "[", "]", "|", "\\", "^", "{", "\"", "<", "ä", "\u{7F}", "\t",
                                   "#", "`", "\u{0}"])

    static func randomText(_ random: inout SeededRandom) -> String {
        let oddChance = [0, 3, 20].randomElement(using: &random) ?? 0
        func piece(_ pieces: (usual: [String], odd: [String])) -> String {
            let odd = Int.random(in: 0..<100, using: &random) < oddChance
            return (odd ? pieces.odd : pieces.usual).randomElement(using: &random) ?? ""
        }
        var text = piece(schemes)
        for _ in 0..<Int.random(in: 0...3, using: &random) { text += piece(hostPieces) }
        text += piece(portPieces)
        for _ in 0..<Int.random(in: 0...10, using: &random) { text += piece(restPieces) }
        return text
    }

    @Test("Every text isPlainHTTP accepts parses with URL(string:) to itself, query included (100,000 random texts, ~15,000 of them accepted)")
    func acceptedTextsParseAsWritten() throws {
        var random = SeededRandom(seed: 16_316)
        var accepted = 0
        for _ in 0..<100_000 {
            let text = Self.randomText(&random)
            guard URLText.isPlainHTTP(text) else { continue }
            accepted += 1
            let url = try #require(URL(string: text), "accepted but URL(string:) refuses \(text.debugDescription)")
            #expect(url.absoluteString == text, "accepted \(text.debugDescription), Foundation reads \(url.absoluteString.debugDescription)")
            #expect(URLText.query(of: text).map(String.init) == url.query(percentEncoded: true), "\(text.debugDescription)")
            if url.absoluteString != text { return }
        }
        // Both sides of the line were exercised.
        #expect(accepted > 10_000)
        #expect(accepted < 90_000)
    }

    @Test("Texts Foundation refuses or re-encodes are not recognised", arguments: [
        "http://a/%zz", "http://a/%", "http://a/%4", "http://a/b#c#d", "http://a/b c", "http://a/ä", "http://a/b[c",
        "http://[::1]/", "http://a:0/", "http://a:65536/", "http://a:/x", "HTTP://a/", "ftp://a/", "http:///x",
        "http://a b/", "http://a/\u{7F}", "http://user@a/",
    ])
    func declined(_ text: String) {
        #expect(!URLText.isPlainHTTP(text))
    }

    @Test("Plain URLs the library builds are recognised", arguments: [
        "http://127.0.0.1:8080/echo", "https://api.example.com/v1/users?page=2&q=a%20b#top", "http://a", "https://a.b-c:1?x",
        "http://localhost:65535/a/b/../c;p=1?x=%2F&y=:@!$'()*+,~#frag?ment",
    ])
    func recognised(_ text: String) {
        #expect(URLText.isPlainHTTP(text))
    }

    @Test("A prepared request sends what URL(string:) made of its URL, whether or not the text was recognised",
          arguments: ["/echo", "/a%zz#b#c", "/a b/ä?x=1", "/p?q#f", "", "/x%41y", "/a#b?c"])
    func preparedTextIsFoundations(_ endpoint: String) throws {
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: 8080)
        let snapshot = TestRequest<Echo>(provider, endpoint).resolved()
        let built = try snapshot.baseURL()
        let prepared = try snapshot.prepare(providerHeaders: [:])
        let foundation = try #require(URL(string: built))
        #expect(prepared.urlText == foundation.absoluteString)
        #expect(prepared.url == foundation)
        #expect(prepared.outgoing().url == foundation)
        #expect(prepared.origin.url == foundation)
    }

    @Test("A secret-looking query item is a secret whether the URL was parsed or only read as text")
    func secretQueryItemsFromText() throws {
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: 8080)
        let plain = try TestRequest<Echo>(provider, "/echo?access_token=nlCanary1").resolved().prepare(providerHeaders: [:])
        let odd = try TestRequest<Echo>(provider, "/echo ä?access_token=nlCanary2").resolved().prepare(providerHeaders: [:])
        let fragment = try TestRequest<Echo>(provider, "/echo#x?access_token=nlCanary3").resolved().prepare(providerHeaders: [:])
        #expect(!plain.redactedDescription.contains("nlCanary1"))
        #expect(!odd.redactedDescription.contains("nlCanary2"))
        #expect(URLText.query(of: fragment.urlText) == nil)
    }
}
