import Foundation

/// A ``ServiceProvider`` made from one base URL (its path becomes ``basePath``), for a backend
/// that needs nothing but a place, headers and credentials.
public struct BaseURLProvider: ServiceProvider, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The host name or IP address (an IPv6 address in brackets).
    public let host: String
    public let httpScheme: HTTPScheme
    public let port: Int?
    public let basePath: String
    /// The headers every request carries; a request's own override them by name.
    public var headers: [String: String]
    public var authentication: Authentication?

    /// A provider for the backend at `url`: `http://` or `https://`, a host, an optional port and path.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` naming what is wrong; user information, a
    ///   query or a fragment is refused (they may hold secrets, and are never shown in the error).
    public init(_ url: String, headers: [String: String] = [:], authentication: Authentication? = nil) throws(NetworkError) {
        let parts = try Self.parse(url)
        host = parts.host
        httpScheme = parts.scheme
        port = parts.port
        basePath = parts.path
        self.headers = headers
        self.authentication = authentication
    }

    /// A provider for the backend at `url`, as the initializer taking text does.
    public init(_ url: URL, headers: [String: String] = [:], authentication: Authentication? = nil) throws(NetworkError) {
        try self.init(url.absoluteString, headers: headers, authentication: authentication)
    }

    /// `scheme://host[:port]basePath`: the URL this provider was made from, without anything it refused.
    public var baseURL: String {
        "\(httpScheme.rawValue)://\(host)" + (port.map { ":\($0)" } ?? "") + basePath
    }

    public func createHTTPHeaders() -> [String: String] { headers }

    /// The base URL, the header names, whether there is an authentication: never a value or credential.
    public var description: String {
        let names = headers.keys.sorted().joined(separator: ", ")
        return "BaseURLProvider(\(baseURL)" + (names.isEmpty ? "" : ", headers: \(names)")
            + (authentication == nil ? "" : ", authentication: \(Redactor.placeholder)") + ")"
    }

    public var debugDescription: String { description }

    /// What `dump` and debuggers show: the description, without header values or credentials.
    public var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }

    // MARK: Parsing

    private struct Parts {
        var scheme: HTTPScheme
        var host: String
        var port: Int?
        var path: String
    }

    /// The URL taken apart and checked; a refusal never shows user information, query or fragment.
    private static func parse(_ url: String) throws(NetworkError) -> Parts {
        let shown = shownForm(of: url)
        func refuse(_ why: String) -> NetworkError {
            .invalidRequest(.init(reason: "the base URL \"\(shown)\" \(why)"))
        }
        guard !url.isEmpty else { throw .invalidRequest(.init(reason: "the base URL is empty")) }
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw refuse("holds a space or a control character; percent-encode a space in a path as %20")
        }
        guard let separator = url.range(of: "://") else {
            throw refuse("has no scheme; start it with https:// or http://")
        }
        let schemeText = url[..<separator.lowerBound]
        guard let scheme = HTTPScheme(rawValue: schemeText.lowercased()) else {
            throw refuse("has the scheme \"\(schemeText.prefix(20))\"; only http and https are supported")
        }
        let rest = url[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let afterAuthority = rest[authorityEnd...]
        let queryStart = afterAuthority.firstIndex(of: "?")
        let fragmentStart = afterAuthority.firstIndex(of: "#")
        var refused: [String] = []
        if authority.contains("@") { refused.append("user information (name:password@; give credentials as authentication)") }
        if let queryStart, queryStart < (fragmentStart ?? afterAuthority.endIndex) {
            refused.append("a query (?…; give query items as a request's params)")
        }
        if fragmentStart != nil { refused.append("a fragment (#…)") }
        guard refused.isEmpty else {
            throw refuse("has " + refused.joined(separator: " and ") + "; a base URL is a scheme, a host, a port and a path")
        }
        let (host, port) = try hostAndPort(of: authority, refuse: refuse)
        let path = String(afterAuthority)
        try checkPercentEscapes(in: path, refuse: refuse)
        return Parts(scheme: scheme, host: host, port: port, path: path)
    }

    private static func hostAndPort(of authority: Substring, refuse: (String) -> NetworkError) throws(NetworkError) -> (String, Int?) {
        guard !authority.isEmpty else { throw refuse("has no host") }
        var host = authority
        var portText: Substring?
        if authority.first == "[" {
            // An IPv6 literal: the port, if any, comes after the closing bracket.
            guard let close = authority.firstIndex(of: "]") else { throw refuse("has an IPv6 host without its closing ]") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw refuse("has \"\(after.prefix(20))\" after its IPv6 host; expected :port") }
                portText = after.dropFirst()
            }
            let inside = host.dropFirst().dropLast()
            guard !inside.isEmpty, inside.contains(":"), inside.utf8.allSatisfy({ ipv6Bytes.contains($0) }) else {
                throw refuse("has the host \(host.prefix(64)), which is not an IPv6 address")
            }
        } else {
            if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            }
            guard !host.isEmpty else { throw refuse("has no host") }
            guard host.utf8.allSatisfy({ hostBytes.contains($0) }) else {
                let ascii = host.unicodeScalars.allSatisfy(\.isASCII)
                throw refuse("has the host \"\(host.prefix(64))\", which is not a valid host name "
                             + (ascii ? "(letters, digits, '-' and '.' only)" : "(give an international name in its ASCII form, xn--…)"))
            }
        }
        guard let portText else { return (String(host), nil) }
        guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let port = Int(portText), (1...65535).contains(port) else {
            throw refuse("has the port \"\(portText.prefix(20))\", not a number from 1 to 65535")
        }
        return (String(host), port)
    }

    /// A `%` in the path must start an escape (`%2F`): anything else is no URL.
    private static func checkPercentEscapes(in path: String, refuse: (String) -> NetworkError) throws(NetworkError) {
        let bytes = Array(path.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                    throw refuse("has a % in its path that starts no escape (write %25 for a percent sign)")
                }
                index += 3
            } else {
                index += 1
            }
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// The URL as an error shows it: control characters escaped, user information (up to the last
    /// `@`), query and fragment redacted (they may carry a token), at most 200 characters.
    private static func shownForm(of url: String) -> String {
        var text = Substring(url)
        var prefix = ""
        if let schemeEnd = text.range(of: "://"), let at = text[schemeEnd.upperBound...].lastIndex(of: "@") {
            prefix = text[..<schemeEnd.upperBound] + Redactor.placeholder + "@"
            text = text[text.index(after: at)...]
        }
        var suffix = ""
        if let mark = text.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            suffix = text[mark] == "?" ? "?…" : "#…"
            text = text[..<mark]
        }
        return (prefix + String(text.prefix(200)) + suffix).escapingControlCharacters
    }

    private static let hostBytes = ASCIISet("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")
    private static let ipv6Bytes = ASCIISet("0123456789abcdefABCDEF:.%")
}
