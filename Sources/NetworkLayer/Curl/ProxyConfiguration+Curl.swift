import Foundation

extension ProxyConfiguration {
    /// An explicit proxy in libcurl's terms, checked.
    struct CurlProxy: Equatable {
        /// `scheme://host:port`, without credentials (they go in their own options).
        let url: String
        let username: String?
        let password: String?
        /// `excluding`, as `CURLOPT_NOPROXY` takes it.
        let noProxy: String?
    }

    /// The explicit proxy for libcurl, or `nil` for `.environment` and `.none`.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` for a URL of another scheme or without a
    ///   host, or a credential or exclusion that holds a control character (or a comma).
    func curlProxy(request: String) throws(NetworkError) -> CurlProxy? {
        func refuse(_ reason: String) -> NetworkError { .invalidRequest(.init(request: request, reason: reason)) }
        let url: URL, username: String?, password: String?, excluding: [String], schemes: Set<String>
        switch self {
        case .environment, .none: return nil
        case .http(let proxyURL, let user, let secret, let excluded):
            (url, username, password, excluding, schemes) = (proxyURL, user, secret, excluded, ["http", "https"])
        case .socks5(let proxyURL):
            (url, username, password, excluding, schemes) = (proxyURL, nil, nil, [], ["socks5", "socks5h"])
        }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), schemes.contains(scheme) else {
            throw refuse("the proxy URL must start with " + schemes.sorted().map { $0 + "://" }.joined(separator: " or "))
        }
        guard let host = components.percentEncodedHost, !host.isEmpty else { throw refuse("the proxy URL names no host") }
        // Credentials in the URL are used when none are given separately; either way they leave it.
        let user = username ?? components.user
        let secret = password ?? (username == nil ? components.password : nil)
        for value in [user, secret].compactMap({ $0 }) where value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw refuse("the proxy credentials hold a control character")
        }
        for host in excluding where host.isEmpty || host.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0 == "," }) {
            throw refuse("a host the proxy excludes is empty or holds a space, a comma or a control character: \"\(host)\"")
        }
        components.user = nil
        components.password = nil
        components.scheme = scheme
        components.path = ""
        components.query = nil
        components.fragment = nil
        guard let text = components.string else { throw refuse("the proxy URL could not be read") }
        return CurlProxy(url: text, username: user, password: secret, noProxy: excluding.isEmpty ? nil : excluding.joined(separator: ","))
    }

    /// The proxy a request to `url` goes through, as `scheme://host:port` without credentials,
    /// or `nil` when it goes direct: for naming the proxy in an error and in the log. libcurl
    /// decides for itself; this follows its rules (the environment variables it reads, in its
    /// order, and its `no_proxy` matching).
    func proxyDescription(for url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let host = url.host ?? ""
        switch self {
        case .none:
            return nil
        case .http(let proxyURL, _, _, let excluding):
            return Self.excludes(excluding.joined(separator: ","), host: host) ? nil : Self.describe(proxyURL.absoluteString)
        case .socks5(let proxyURL):
            return Self.describe(proxyURL.absoluteString)
        case .environment:
            func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
            let scheme = (url.scheme ?? "http").lowercased()
            // curl reads `http_proxy` in lower case only; the others in lower case, then upper.
            var value = variable("\(scheme)_proxy")
            if value == nil, scheme != "http" { value = variable("\(scheme)_proxy".uppercased()) }
            if value == nil { value = variable("all_proxy") ?? variable("ALL_PROXY") }
            guard let value else { return nil }
            if Self.excludes(variable("no_proxy") ?? variable("NO_PROXY") ?? "", host: host) { return nil }
            return Self.describe(value)
        }
    }

    /// `scheme://host:port` of a proxy written as curl takes it (a missing scheme is `http`),
    /// without user information; the text as it is when it does not parse.
    static func describe(_ proxy: String) -> String {
        let text = proxy.contains("://") ? proxy : "http://" + proxy
        guard var components = URLComponents(string: text), components.host != nil else {
            return Redactor.default.redact(urlString: text)
        }
        components.user = nil
        components.password = nil
        components.path = ""
        return components.string ?? text
    }

    /// Whether curl's `no_proxy` list (comma- or space-separated) sends `host` direct: `*`, the
    /// host itself or a parent domain (a leading dot changes nothing), an IP address or a CIDR range.
    static func excludes(_ list: String, host: String) -> Bool {
        let host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        let address = addressBytes(name)
        for token in list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map({ $0.lowercased() }) {
            if token == "*" { return true }
            if let address {
                let parts = token.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).split(separator: "/", maxSplits: 1)
                guard let first = parts.first, let network = addressBytes(String(first)), network.count == address.count else { continue }
                let bits = parts.count == 2 ? Int(parts[1]) ?? -1 : network.count * 8
                guard (0...network.count * 8).contains(bits) else { continue }
                if Self.prefixMatches(address, network, bits: bits) { return true }
                continue
            }
            var pattern = Substring(token)
            if pattern.hasPrefix(".") { pattern = pattern.dropFirst() }
            if pattern.hasSuffix(".") { pattern = pattern.dropLast() }
            guard !pattern.isEmpty else { continue }
            if name == pattern || name.hasSuffix("." + pattern) { return true }
        }
        return false
    }

    private static func prefixMatches(_ a: [UInt8], _ b: [UInt8], bits: Int) -> Bool {
        for index in 0..<a.count {
            let remaining = bits - index * 8
            if remaining <= 0 { return true }
            let mask: UInt8 = remaining >= 8 ? 0xFF : UInt8(truncatingIfNeeded: 0xFF << (8 - remaining))
            if a[index] & mask != b[index] & mask { return false }
        }
        return true
    }

    /// The bytes of an IPv4 or IPv6 address, or `nil` for a name.
    private static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
