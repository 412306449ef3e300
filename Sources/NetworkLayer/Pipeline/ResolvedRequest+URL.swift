import Foundation

/// The request's URL: the provider's `scheme://host[:port][/basePath]` and the endpoint, or a full
/// URL of the request's own; then the query (`params` and credentials).
extension ResolvedRequest {
    /// A URL as the request carries it: its text, Foundation's parse when one was needed, and its query.
    struct BuiltURL {
        let text: String
        let parsed: URL?
        var query: Substring? {
            if let parsed { return parsed.query(percentEncoded: true).map { Substring($0) } }
            return URLText.query(of: text)
        }
    }

    /// The URL before the query is added, and whether it is at the provider's own origin (a full
    /// URL may go elsewhere: its credentials, secret headers and `adapt(_:)` then stay behind).
    func targetURL() throws(NetworkError) -> (url: String, isAtProviderOrigin: Bool) {
        guard case .url(let url) = target else { return (try baseURL(), true) }
        let scheme = url.scheme.map(SecretNames.folded)
        guard scheme == "http" || scheme == "https" else {
            throw .invalidRequest(.init(request: describeUnprepared(),
                                        reason: "only http and https URLs can be requested, not \"\(HeaderFields.printable(url.scheme ?? ""))\""))
        }
        guard url.host?.isEmpty == false, let origin = Origin(url) else {
            throw .invalidRequest(.init(request: describeUnprepared(), reason: "the URL names no host"))
        }
        return (url.absoluteString, location.isOrigin(of: origin))
    }

    /// `url` with `query` and the credentials' query items appended before any fragment, checked:
    /// text ``URLText/isPlainHTTP(_:)`` accepts is parsed only if read, any other by `URL(string:)` here.
    func finalURL(_ url: String, query: String, credentials: [(name: String, value: String)],
                  secrets: SecretNames) throws(NetworkError) -> BuiltURL {
        var url = url
        var queryText = query
        for item in credentials {
            queryText += (queryText.isEmpty ? "" : "&") + ParameterValue.percentEncode(item.name) + "=" + ParameterValue.percentEncode(item.value)
        }
        if !queryText.isEmpty {
            let fragmentStart = url.firstIndex(of: "#") ?? url.endIndex
            let separator = url[..<fragmentStart].contains("?") ? "&" : "?"
            url.insert(contentsOf: separator + queryText, at: fragmentStart)
        }
        if URLText.isPlainHTTP(url) { return BuiltURL(text: url, parsed: nil) }
        // No host check needed: baseURL put a checked host after "://", and a full URL's origin was checked.
        guard let checked = URL(string: url) else {
            let shown = HeaderFields.printable(Redactor(names: secrets).redact(urlString: url))
            throw .invalidRequest(.init(request: "\(method.rawValue) \(shown)", reason: "\"\(shown)\" is not a valid URL"))
        }
        return BuiltURL(text: checked.absoluteString, parsed: checked)
    }

    /// `scheme://host[:port][/basePath]endpoint`, checked part by part so a mistake gets a precise message.
    func baseURL() throws(NetworkError) -> String {
        func invalid(_ reason: String) -> NetworkError {
            .invalidRequest(.init(request: describeUnprepared(), reason: reason))
        }
        let host = location.host
        let isIPv6Literal = host.utf8.first == UInt8(ascii: "[") && host.utf8.last == UInt8(ascii: "]")
        let allowed = isIPv6Literal ? Self.ipv6Bytes : Self.hostBytes
        guard !host.isEmpty, allowed.containsAll(host) else {
            if host.isEmpty { throw invalid("the provider's host is empty") }
            if host.contains("://") {
                throw invalid("the provider's host \"\(host)\" contains a scheme; give the scheme in httpScheme and only the name in host")
            }
            throw invalid("the provider's host \"\(host)\" is not a valid host name "
                          + "(only letters, digits, '-' and '.', or an IPv6 address in brackets)")
        }
        let basePath = location.basePath
        var port: Int?
        if let value = location.port {
            guard (1...65535).contains(value) else { throw invalid("the provider's port \(value) is outside 1...65535") }
            port = value
        }
        let endpoint = self.endpoint
        var path = Substring(endpoint)
        // The base path as it goes into the URL (escaped, without its outer slashes), and whether a
        // '/' joins it to the endpoint.
        var escapedBase: String?
        var slashBeforePath = false
        if !basePath.isEmpty {
            guard !basePath.contains("?"), !basePath.contains("#") else {
                throw invalid("the provider's basePath \"\(HeaderFields.printable(basePath))\" holds a query or fragment; it may hold only a path")
            }
            guard !basePath.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw invalid("the provider's basePath contains a control character (CR, LF, NUL or another)")
            }
            // Exactly one '/' at each end of the join, however the two are written.
            var base = Substring(basePath)
            while base.first == "/" { base = base.dropFirst() }
            while base.last == "/" { base = base.dropLast() }
            if !base.isEmpty { escapedBase = Self.escapedPath(String(base)) }
            while path.first == "/" { path = path.dropFirst() }
            // "/orders" and "orders" after a slash; "" and "?page=2" right after the base path;
            // "/" (and "/?page=2") keep their slash.
            let first = path.utf8.first
            slashBeforePath = endpoint.utf8.first == UInt8(ascii: "/")
                || !(first == nil || first == UInt8(ascii: "?") || first == UInt8(ascii: "#"))
        } else if let first = path.utf8.first, first != UInt8(ascii: "/") {  // bytes: hasPrefix on a Substring is slow
            slashBeforePath = true
        }
        if Self.endpointBytes.containsAll(path) {
            return Self.joined(scheme: location.scheme.rawValue, host: host, port: port, base: escapedBase,
                               slash: slashBeforePath, path: path.utf8)
        }
        guard !path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw invalid("the endpoint contains a control character (CR, LF, NUL or another)")
        }
        return Self.joined(scheme: location.scheme.rawValue, host: host, port: port, base: escapedBase,
                           slash: slashBeforePath, path: Self.escapedPath(String(path)).utf8)
    }

    private static func joined<Path: Collection<UInt8>>(scheme: String, host: String, port: Int?, base: String?,
                                                         slash: Bool, path: Path) -> String {
        var portDigits = 0
        if let port {
            var rest = port
            repeat { portDigits += 1; rest /= 10 } while rest > 0
        }
        let baseCount = base.map { 1 + $0.utf8.count } ?? 0
        let count = scheme.utf8.count + 3 + host.utf8.count + (port == nil ? 0 : 1 + portDigits) + baseCount
            + (slash ? 1 : 0) + path.count
        return String(unsafeUninitializedCapacity: count) { buffer in
            var index = 0
            func put(_ byte: UInt8) {
                buffer[index] = byte
                index += 1
            }
            func put<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
                let copied = bytes.withContiguousStorageIfAvailable { source -> Int in
                    guard let start = source.baseAddress, let target = buffer.baseAddress else { return 0 }
                    (target + index).update(from: start, count: source.count)
                    return source.count
                }
                if let copied {
                    index += copied
                } else {
                    for byte in bytes { put(byte) }
                }
            }
            put(scheme.utf8)
            put(UInt8(ascii: ":")); put(UInt8(ascii: "/")); put(UInt8(ascii: "/"))
            put(host.utf8)
            if let port {
                put(UInt8(ascii: ":"))
                var rest = port
                var position = index + portDigits
                index = position
                repeat {
                    position -= 1
                    buffer[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                } while rest > 0
            }
            if let base {
                put(UInt8(ascii: "/"))
                put(base.utf8)
            }
            if slash { put(UInt8(ascii: "/")) }
            put(path)
            return index
        }
    }

    /// The text with the characters that cannot appear raw in a path (space, quotes, non-ASCII)
    /// percent-encoded; existing escapes, '/', '?' and '&' keep their meaning.
    private static func escapedPath(_ text: String) -> String {
        if endpointBytes.containsAll(text) { return text }
        return text.addingPercentEncoding(withAllowedCharacters: endpointCharacters) ?? text
    }

    private static let hostBytes = ASCIISet("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")
    private static let ipv6Bytes = ASCIISet("0123456789abcdefABCDEF:.[]%")
    /// RFC 3986 path characters (unreserved, sub-delims, `:`, `@`, `/`) plus `?`, `#` and `%`,
    /// so an endpoint's own query, fragment and escapes keep their meaning.
    private static let endpointAllowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?#%"
    private static let endpointBytes = ASCIISet(endpointAllowed)
    private static let endpointCharacters = CharacterSet(charactersIn: endpointAllowed)
}

extension ResolvedRequest.Location {
    /// Whether `origin` (a URL's, as ``Origin`` holds it) is this location's. A host declared as
    /// `origin` holds it compares as it is; any other is parsed and normalised as `origin` was
    /// (`127.1`, upper case, an IPv6 literal's spelling): normalising the normal form changes nothing,
    /// so the shortcut never answers otherwise than the parse.
    func isOrigin(of origin: Origin) -> Bool {
        if origin.scheme == scheme.rawValue, origin.host == host, origin.port == port ?? (scheme == .https ? 443 : 80) {
            return true
        }
        let home = "\(scheme.rawValue)://\(host)" + (port.map { ":\($0)" } ?? "")
        return CurlURL(home).flatMap(Origin.init) == origin
    }
}
