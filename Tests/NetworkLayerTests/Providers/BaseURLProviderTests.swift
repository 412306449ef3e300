import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `BaseURLProvider`: a provider from one URL. Scheme, host, port and base path come from it;
/// user information, a query, a fragment, another scheme or no host are refused, naming the part
/// and never showing a credential; requests through it reach a real server with its headers and
/// authentication.
@Suite("A provider from a base URL", .sharing)
struct BaseURLProviderTests {
    struct Parts: Sendable, CustomTestStringConvertible {
        let url: String
        let scheme: HTTPScheme
        let host: String
        let port: Int?
        let basePath: String
        var testDescription: String { url }
    }

    static let valid: [Parts] = [
        Parts(url: "https://api.github.com/v3", scheme: .https, host: "api.github.com", port: nil, basePath: "/v3"),
        Parts(url: "http://127.0.0.1:8080", scheme: .http, host: "127.0.0.1", port: 8080, basePath: ""),
        Parts(url: "https://[::1]:8443/api/", scheme: .https, host: "[::1]", port: 8443, basePath: "/api/"),
        Parts(url: "HTTPS://Example.COM:443/", scheme: .https, host: "Example.COM", port: 443, basePath: "/"),
        Parts(url: "https://example.com/a%20b/c", scheme: .https, host: "example.com", port: nil, basePath: "/a%20b/c"),
        Parts(url: "http://localhost:1/x/y/z", scheme: .http, host: "localhost", port: 1, basePath: "/x/y/z"),
        Parts(url: "https://[2001:db8::1]/v1", scheme: .https, host: "[2001:db8::1]", port: nil, basePath: "/v1"),
    ]

    @Test("Scheme, host, port and base path come from the URL", arguments: valid)
    func partsComeFromTheURL(parts: Parts) throws {
        let provider = try BaseURLProvider(parts.url)
        #expect(provider.httpScheme == parts.scheme)
        #expect(provider.host == parts.host)
        #expect(provider.port == parts.port)
        #expect(provider.basePath == parts.basePath)
        #expect(provider.headers.isEmpty)
        #expect(provider.authentication == nil)
        #expect(try BaseURLProvider(#require(URL(string: parts.url))).baseURL == provider.baseURL)
    }

    /// A URL, what the refusal must name, and text it must not show (a credential or query).
    struct Refusal: Sendable, CustomTestStringConvertible {
        let url: String
        let names: [String]
        var hides: [String] = []
        var testDescription: String { url.debugDescription }
    }

    static let refusals: [Refusal] = [
        Refusal(url: "", names: ["is empty"]),
        Refusal(url: "api.github.com/v3", names: ["no scheme", "https://"]),
        Refusal(url: "ftp://files.example.com/pub", names: ["scheme \"ftp\"", "http and https"]),
        Refusal(url: "file:///etc/passwd", names: ["scheme \"file\""]),
        Refusal(url: "https://", names: ["no host"]),
        Refusal(url: "https:///v3", names: ["no host"]),
        Refusal(url: "https://:8080/v3", names: ["no host"]),
        Refusal(url: "https://user:s3cretPass@api.example.com/v1", names: ["user information", "authentication"], hides: ["s3cretPass", "user:"]),
        Refusal(url: "https://api.example.com/v1?token=abc123XYZ", names: ["a query", "params"], hides: ["abc123XYZ", "token"]),
        Refusal(url: "https://api.example.com/v1#section", names: ["a fragment"], hides: ["section"]),
        Refusal(url: "https://u:pw99z@h.example/x?k=v77#f", names: ["user information", "a query", "a fragment"], hides: ["pw99z", "v77"]),
        Refusal(url: "https://us?er:pa#ss@h.example/x", names: ["a query"], hides: ["us?er", "pa#ss", "er:pa"]),
        Refusal(url: "https://api.example.com:0", names: ["port \"0\"", "1 to 65535"]),
        Refusal(url: "https://api.example.com:65536", names: ["port \"65536\""]),
        Refusal(url: "https://api.example.com:http", names: ["port \"http\""]),
        Refusal(url: "https://api.example.com:", names: ["port \"\""]),
        Refusal(url: "https://api.example.com:99999999999999999999999", names: ["port"]),
        Refusal(url: "https://api example.com", names: ["space or a control character"]),
        Refusal(url: "https://api.example.com/v1\r\nX-Injected: 1", names: ["control character"], hides: ["\r", "\n"]),
        Refusal(url: "https://api.example.com/\u{1B}[2J", names: ["control character", "\\u{1B}"], hides: ["\u{1B}"]),
        Refusal(url: "https://bücher.example/api", names: ["ASCII form", "xn--"]),
        Refusal(url: "https://api_example.com", names: ["not a valid host name"]),
        Refusal(url: "https://[::1/v1", names: ["closing ]"]),
        Refusal(url: "https://[not-v6]/v1", names: ["not an IPv6 address"]),
        Refusal(url: "https://[::1]x/v1", names: ["after its IPv6 host"]),
        Refusal(url: "https://api.example.com/%zz", names: ["% in its path"]),
        Refusal(url: "https://api.example.com/100%", names: ["% in its path"]),
    ]

    @Test("A URL a provider cannot hold is refused with .invalidRequest naming the part, never showing a credential", arguments: refusals)
    func refusedURLs(refusal: Refusal) {
        #expect {
            try BaseURLProvider(refusal.url)
        } throws: { error in
            guard case .invalidRequest(let context) = error as? NetworkError, let reason = context.reason,
                  let description = (error as? NetworkError)?.errorDescription else { return false }
            for part in refusal.names where !reason.contains(part) { Issue.record("\"\(reason)\" does not name \(part)") }
            for hidden in refusal.hides where description.contains(hidden) { Issue.record("\"\(description)\" shows \(hidden.debugDescription)") }
            return reason.hasPrefix("the base URL")
        }
    }

    @Test("Requests through it reach the server under the base path, with its headers and authentication; the token is redacted")
    func requestsThroughItReachTheServer() async throws {
        let server = try await TestServer.shared()
        let log = LogCollector()
        let provider = try BaseURLProvider("http://127.0.0.1:\(server.port)/echo/v3", headers: ["Accept": "application/json"],
                                           authentication: .bearer("nl-base-url-token-7"))
        #expect(provider.baseURL == "http://127.0.0.1:\(server.port)/echo/v3")
        let net = makeManager(log: log)
        let echo = try await net.perform(TestRequest<Echo>(provider, "/users", params: ["page": 2]))
        #expect(echo.path == "/echo/v3/users")
        #expect(echo.query == "page=2")
        #expect(echo.header("Authorization") == "Bearer nl-base-url-token-7")
        #expect(echo.header("Accept") == "application/json")
        #expect(!log.text.contains("nl-base-url-token-7"), "\(log.text)")
        // Printing or dumping the provider shows neither the token nor a header's value.
        var dumped = ""
        dump(provider, to: &dumped)
        for text in [String(describing: provider), String(reflecting: provider), dumped, "\([provider])"] {
            #expect(!text.contains("nl-base-url-token-7") && !text.contains("application/json"), "\(text)")
        }
        #expect(provider.description == "BaseURLProvider(http://127.0.0.1:\(server.port)/echo/v3, headers: Accept, authentication: <redacted>)")
        // The endpoint may be written without a slash, or be only a query: one slash, always.
        let withoutSlash = try await net.perform(TestRequest<Echo>(provider, "users"))
        #expect(withoutSlash.path == "/echo/v3/users")
        let empty = try await net.perform(TestRequest<Echo>(provider, ""))
        #expect(empty.path == "/echo/v3")
        // A trailing slash in the base URL gives no double slash.
        let slashed = try BaseURLProvider("http://127.0.0.1:\(server.port)/echo/v3/")
        let fromSlashed = try await net.perform(TestRequest<Echo>(slashed, "/users"))
        #expect(fromSlashed.path == "/echo/v3/users")
        // Headers and authentication can change after it is made.
        var changed = provider
        changed.headers["X-Tenant"] = "t1"
        changed.authentication = nil
        let echoed = try await net.perform(TestRequest<Echo>(changed, "/x"))
        #expect(echoed.header("X-Tenant") == "t1")
        #expect(echoed.header("Authorization") == nil)
    }

    @Test("An https base URL reaches a TLS server")
    func httpsBaseURL() async throws {
        try await withLegitServer { server in
            let provider = try BaseURLProvider("https://localhost:\(server.port)/echo")
            let echo = try await makeTLSManager().perform(TestRequest<Echo>(provider, "/tls"))
            #expect(echo.path == "/echo/tls")
        }
    }

    @Test("Random URL-like strings never trap: each is refused with .invalidRequest, or gives parts that make a valid request URL")
    func randomStringsNeverTrap() throws {
        var random = SeededRandom(seed: 2525)
        let pieces = ["https://", "http://", "HTTP://", "ftp://", "://", ":", "/", "//", "?", "#", "@", "[", "]", "::1", "%", "%2F",
                      "%zz", "a", "Z", "0", "9", "8080", "65535", "65536", "-", ".", "..", "_", "~", " ", "\t", "\r\n", "\u{0}",
                      "\u{1B}", "\u{7F}", "\u{9B}", "é", "ü", "😀", "\u{202E}", "api", "example.com", "localhost", "v3", "user:pw"]
        var accepted = 0
        func some(_ choices: [String]) -> String { choices.randomElement(using: &random)! }
        func junk(_ most: Int) -> String { (0..<Int.random(in: 0...most, using: &random)).map { _ in some(pieces) }.joined() }
        for round in 0..<4000 {
            let text: String
            if round.isMultiple(of: 2) {
                // Shaped like a URL, with a piece of junk somewhere half the time.
                var parts = [some(["https://", "http://", "HTTPS://"]), some(["api.example.com", "127.0.0.1", "[::1]", "localhost", "a-b.c"]),
                             some(["", "", ":8080", ":1", ":65535"]), some(["", "/", "/v3", "/api/v1/", "/a%20b"])]
                if Bool.random(using: &random) { parts[Int.random(in: 0..<parts.count, using: &random)] += junk(2) }
                text = parts.joined()
            } else {
                text = junk(9)
            }
            let provider: BaseURLProvider
            do {
                provider = try BaseURLProvider(text)
            } catch {
                guard case .invalidRequest(let context) = error, context.reason?.hasPrefix("the base URL") == true else {
                    Issue.record("\(text.debugDescription) gave \(error)")
                    continue
                }
                #expect(!(error.errorDescription ?? "").unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
                continue
            }
            accepted += 1
            // What was accepted holds no user information, query or fragment, and builds a request URL
            // with the same host and port.
            let afterScheme = text.components(separatedBy: "://").dropFirst().joined(separator: "://")
            let authority = afterScheme.prefix { $0 != "/" }
            #expect(!authority.contains("@"), "\(text.debugDescription)")
            #expect(!afterScheme.contains("?") && !afterScheme.contains("#"), "\(text.debugDescription)")
            let snapshot = TestRequest<Echo>(provider, "/endpoint").resolved()
            let url = try #require(URL(string: try snapshot.baseURL()), "\(text.debugDescription)")
            #expect(url.host(percentEncoded: false).map { provider.host.contains($0) } == true,
                    "\(text.debugDescription): \(url) has the host \(String(describing: url.host)), not \(provider.host)")
            #expect(url.port == provider.port, "\(text.debugDescription)")
        }
        #expect(accepted > 1000, "the generator makes valid URLs too (\(accepted))")
    }
}
