import Foundation
@testable import NetworkLayer

/// The redirect rules: a request to a random origin (scheme, host spelling, port) carrying every
/// kind of secret (an API key the authentication adds in a header or a query item, `Authorization`,
/// `Cookie`, `Proxy-Authorization`, a header the provider declares secret) and an ordinary header,
/// redirected with a random status to a random `Location`: an absolute URL built from parts that
/// confuse readers (case, default and other ports, trailing dots, user information, `@` in odd
/// places, IPv6 spellings, percent-encoded dots, HTTPS → HTTP), a relative reference, a
/// secret echoed into the target, or any bytes.
///
/// Checked, with an origin computed here independently (Foundation's reading of the URL the hop
/// goes to, default ports filled in, IPv4 and IPv6 addresses compared as the addresses they name): the hop never traps;
/// it fails only with `.transport` (or `.timeOut`), whose description holds no secret; it goes only
/// to `http` or `https`; the ordinary header always follows; every secret header follows exactly
/// when the target's origin is the request's (so always dropped on HTTPS → HTTP and on another
/// port of the same host), and then unchanged; when they are dropped no secret value is anywhere
/// in the hop's headers or URL, and a target of another origin carrying a secret value is refused;
/// `Origin` equality is reflexive and symmetric; and a later hop back to the first origin does not
/// bring back what was dropped.
enum RedirectOriginFuzz {
    private struct Provider: ServiceProvider {
        var host: String
        var httpScheme: HTTPScheme
        var port: Int?
        var secretHeaderNames: Set<String>
    }

    private final class Request: BaseRequest<Data> {}

    private static let hosts = ["api.example.com", "API.Example.COM", "api.example.com.", "api.example.com.evil.test",
                                "127.0.0.1", "127.0.0.2", "localhost", "[::1]", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]",
                                "[2001:db8::1]", "[fe80::1%25eth0]", "xn--bcher-kva.example", "evil.test", "api.example.com%2eevil.test",
                                "0x7f.1", "2130706433", "a.b-c.example"]
    private static let apiKeyHeaders = ["X-API-Key", "Ocp-Apim-Subscription-Key", "x-goog-api-key", "Api-Key", "X-Tenant"]
    private static let declaredHeaders = ["X-Session", "X-Custom-Secret", "Sig", "X-Tenant-Token"]

    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        // The request and its secrets.
        let https = bytes.bool()
        let host = hosts[bytes.choice(hosts.count)]
        let port: Int? = [nil, https ? 443 : 80, 8080, 8443, 1 + bytes.choice(65_535)][bytes.choice(5)]
        let apiKeyHeader = apiKeyHeaders[bytes.choice(apiKeyHeaders.count)]
        let declared = declaredHeaders[bytes.choice(declaredHeaders.count)]
        let secrets = (0..<6).map { "nlS\($0)" + token(&bytes) }
        let queryItemKey = bytes.bool()
        let provider = Provider(host: host, httpScheme: https ? .https : .http, port: port, secretHeaderNames: [declared])
        let request = Request(serviceProvider: provider, endpoint: "/start")
        var credentials = Authentication.Credentials(headers: [(apiKeyHeader, secrets[0])])
        if queryItemKey { credentials.queryItems = [("api_key", secrets[5])] }
        let providerHeaders = ["Authorization": "Bearer " + secrets[1], "Cookie": "sid=" + secrets[2],
                               "Proxy-Authorization": "Basic " + secrets[3], declared: secrets[4], "X-Trace": "kept"]
        let original: PreparedRequest
        do {
            original = try request.resolved().prepare(providerHeaders: providerHeaders, credentials: credentials)
        } catch {
            return // a host or port the library refuses before sending: nothing to redirect
        }
        let usedSecrets = queryItemKey ? secrets : Array(secrets.prefix(5))
        let secretNames = ["authorization", "cookie", "proxy-authorization", apiKeyHeader.lowercased(), declared.lowercased()]

        // The hop.
        let status = [301, 302, 303, 307, 308][bytes.choice(5)]
        let location = self.location(&bytes, https: https, host: host, port: port, secrets: usedSecrets)
        let next: PreparedRequest
        do {
            next = try original.redirected(to: location, status: status, remainingTimeout: 10, from: original)
        } catch {
            let text = "\(error) \(error.errorDescription ?? "") \(error.failureReason ?? "")"
            try require(error.isTransport, "the redirect to \(location.debugDescription) failed with \(error)")
            for secret in usedSecrets {
                try require(!text.contains(secret), "the error for \(location.debugDescription) shows a secret: \(text)")
            }
            return
        }
        let scheme = next.url.scheme?.lowercased()
        try require(scheme == "http" || scheme == "https", "the redirect to \(location.debugDescription) goes to \(next.url)")
        try require(next.headers.contains { $0.name == "X-Trace" && $0.value == "kept" },
                    "the ordinary header did not follow to \(next.url)")

        let from = Origin(original.url)
        let to = Origin(next.url)
        try require(from != nil && to != nil && from == from && to == to && (from == to) == (to == from),
                    "origins of \(original.url) (\(String(describing: from))) and \(next.url) (\(String(describing: to)))")
        guard let expectedSame = sameOrigin(original.url, next.url) else {
            throw FuzzFailure("Foundation cannot read the origin of \(original.url) or of \(next.url), the hop for \(location.debugDescription)")
        }
        try require((from == to) == expectedSame,
                    "Origin says \(original.url) and \(next.url) are \(from == to ? "one origin" : "two origins"); they are not")
        if https && scheme == "http" { try require(!expectedSame, "HTTPS → HTTP counted as one origin") }

        let names = Set(next.headers.map { $0.name.lowercased() })
        if expectedSame {
            for (name, header) in original.headers.map({ ($0.name.lowercased(), $0) }) where secretNames.contains(name) {
                try require(next.headers.contains { $0.name == header.name && $0.value == header.value },
                            "\(header.name) did not follow from \(original.url) to \(next.url) (one origin)")
            }
        } else {
            for name in secretNames {
                try require(!names.contains(name), "\(name) followed from \(original.url) to \(next.url) (another origin)")
            }
            let sent = next.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n") + "\n" + next.url.absoluteString
            for secret in usedSecrets {
                try require(!sent.contains(secret), "a secret followed from \(original.url) to \(next.url): \(sent)")
            }
            // Dropped once, dropped for good: a hop back to the first URL carries none of them.
            if let back = try? next.redirected(to: original.url.absoluteString, status: 307, remainingTimeout: 10, from: original) {
                for name in secretNames {
                    try require(!back.headers.contains { $0.name.lowercased() == name },
                                "\(name) came back on a hop from \(next.url) to \(back.url)")
                }
            }
        }
    }

    /// A value for a secret: letters, digits and a few characters that percent-encoding changes.
    private static func token(_ bytes: inout FuzzBytes) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789~^|.-_")
        return String((0..<(6 + bytes.choice(10))).map { _ in alphabet[bytes.choice(alphabet.count)] })
    }

    /// A `Location` value.
    private static func location(_ bytes: inout FuzzBytes, https: Bool, host: String, port: Int?, secrets: [String]) -> String {
        switch bytes.choice(8) {
        case 0:
            // Relative references.
            let forms = ["/next", "next", "../up/next", "?q=1", "#frag", "//\(hosts[bytes.choice(hosts.count)])/x", "", " /sp ace",
                         "/%2e%2e/x", "\\\\evil.test\\x", "///evil.test/x", "/\(host)@evil.test"]
            return forms[bytes.choice(forms.count)]
        case 1:
            // Any bytes (as text).
            return String(decoding: bytes.take(bytes.choice(80)), as: UTF8.self)
        case 2:
            // A target of another origin that echoes a secret (percent-encoded or not).
            let secret = secrets[bytes.choice(secrets.count)]
            let shown = bytes.bool() ? secret : ParameterValue.percentEncode(secret)
            return "http\(bytes.bool() ? "s" : "")://\(hosts[bytes.choice(hosts.count)]):\(8000 + bytes.choice(3))/cb?k=\(shown)"
        default:
            // An absolute URL from parts, mostly near the request's own origin.
            let schemes = ["http", "https", "HTTP", "HtTpS", https ? "https" : "http", https ? "https" : "http", "ftp", "file", "javascript"]
            let scheme = schemes[bytes.choice(schemes.count)]
            let targetHost = bytes.choice(3) == 0 ? hosts[bytes.choice(hosts.count)] : host
            let userInfo = ["", "", "", "user:pw@", "\(host)@", "\(host):\(port ?? 80)@", "a%40b@"][bytes.choice(7)]
            let portPart: String
            switch bytes.choice(6) {
            case 0, 1: portPart = port.map { ":\($0)" } ?? ""
            case 2: portPart = ""
            case 3: portPart = ":\(https ? 443 : 80)"
            case 4: portPart = ":\(bytes.choice(70_000))"
            default: portPart = ":" + ["", "0080", "+80", "80a", "８０"][bytes.choice(5)]
            }
            let tail = ["/x", "/x?y=1#z", "", "/a/../b", "#@evil.test/", "?@evil.test/", "/%40evil.test"][bytes.choice(7)]
            return "\(scheme)://\(userInfo)\(targetHost)\(portPart)\(tail)"
        }
    }

    /// Whether two URLs are one origin, read by Foundation: scheme and host ignoring case, the
    /// default port filled in, an IPv6 address compared as the address it names (and its zone).
    /// nil when Foundation cannot read one of them.
    private static func sameOrigin(_ a: URL, _ b: URL) -> Bool? {
        guard let left = origin(a), let right = origin(b) else { return nil }
        return left == right
    }

    private static func origin(_ url: URL) -> [String]? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), var host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        let port = components.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.contains(":") {
            var zone = ""
            if let percent = host.firstIndex(of: "%") {
                zone = String(host[host.index(after: percent)...]).replacingOccurrences(of: "25", with: "", options: .anchored)
                host = String(host[..<percent])
            }
            var address = in6_addr()
            guard inet_pton(AF_INET6, host, &address) == 1 else { return nil }
            host = withUnsafeBytes(of: &address) { $0.map { String($0, radix: 16) }.joined(separator: ".") } + "%" + zone
        } else if host.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == "x" }), host.contains(where: \.isNumber) {
            // An IPv4 address in any form the URL standard and libcurl read (`2130706433`,
            // `0x7f.1`, `0177.0.0.1`): the address it names, as the C library reads it.
            var address = in_addr()
            if inet_aton(host, &address) != 0 {
                host = withUnsafeBytes(of: &address) { $0.map { String($0) }.joined(separator: ".") }
            }
        }
        return [scheme, host, String(port)]
    }
}

private extension NetworkError {
    /// The failures a redirect may end in: `.transport` (not followed), `.timeOut` (no time left).
    var isTransport: Bool {
        switch self {
        case .transport, .timeOut: true
        default: false
        }
    }
}
