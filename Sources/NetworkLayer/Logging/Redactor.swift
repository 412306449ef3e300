import Foundation

/// Decides which header and query values are secrets, and replaces them with `<redacted>`.
///
/// Used for everything the library prints or puts in an error: the verbose log, error
/// descriptions, mock sidecars written by record mode, copy-as-curl output.
struct Redactor: Sendable {
    static let placeholder = "<redacted>"

    /// Header names (lowercased) that are always secret.
    static let secretHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie",
        "x-api-key", "api-key", "apikey", "x-apikey",
    ]
    /// Query item names (lowercased) that are always secret.
    static let secretQueryNames: Set<String> = [
        "key", "api_key", "apikey", "api-key", "password", "passwd", "pwd", "sig", "signature",
        "code", "client_secret", "access_token", "refresh_token", "id_token", "token",
    ]
    /// Fragments that make any header or query name secret.
    static let secretFragments = ["token", "secret", "password", "passwd", "apikey", "api-key", "api_key",
                                  "auth", "session", "credential", "cookie", "signature"]

    static let `default` = Redactor()

    /// Extra names (lowercased) the user asked to redact.
    var extraHeaderNames: Set<String> = []
    var extraQueryNames: Set<String> = []

    func isSecretHeader(_ name: String) -> Bool {
        let lower = name.lowercased()
        return Self.secretHeaderNames.contains(lower) || extraHeaderNames.contains(lower)
            || Self.secretFragments.contains { lower.contains($0) }
    }

    func isSecretQueryItem(_ name: String) -> Bool {
        let lower = name.lowercased()
        return Self.secretQueryNames.contains(lower) || extraQueryNames.contains(lower)
            || Self.secretFragments.contains { lower.contains($0) }
    }

    /// Whether a field of a JSON body holds a secret (used for log previews).
    func isSecretField(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "key" || extraQueryNames.contains(lower) || extraHeaderNames.contains(lower)
            || Self.secretFragments.contains { lower.contains($0) }
    }

    /// The secret values a request carries (secret headers, query items, JSON body fields and URL
    /// user information), so that the log can scrub them wherever else they turn up: a server that
    /// echoes a request back would otherwise print them in the response preview.
    func secretValues(of request: PreparedRequest) -> [String] {
        var secrets: [String] = []
        for header in request.headers where isSecretHeader(header.name) {
            secrets.append(header.value)
            // "Bearer abc" → also "abc"; "a=1; b=2" (cookies) → also "1" and "2".
            if let space = header.value.firstIndex(of: " ") { secrets.append(String(header.value[space...].dropFirst())) }
            for cookie in header.value.split(separator: ";") {
                if let equals = cookie.firstIndex(of: "=") { secrets.append(String(cookie[cookie.index(after: equals)...])) }
            }
        }
        if let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) {
            for item in components.queryItems ?? [] where isSecretQueryItem(item.name) {
                if let value = item.value { secrets.append(value) }
            }
            if let user = components.user { secrets.append(user) }
            if let password = components.password { secrets.append(password) }
        }
        if case .bytes(let body)? = request.body, body.count <= 1 << 20,
           let json = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) {
            collectSecretFields(json, into: &secrets)
        }
        if case .multipart(let form)? = request.body {
            for case .text(let name, let value) in form.parts where isSecretField(name) { secrets.append(value) }
        }
        // Short values would scrub ordinary text; they are still redacted where they are named.
        return Array(Set(secrets.map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.count >= 4 }))
            .sorted { $0.count > $1.count }
    }

    private func collectSecretFields(_ value: Any, into secrets: inout [String]) {
        if let object = value as? [String: Any] {
            for (key, member) in object {
                if isSecretField(key), let text = member as? String { secrets.append(text) }
                collectSecretFields(member, into: &secrets)
            }
        } else if let array = value as? [Any] {
            for member in array { collectSecretFields(member, into: &secrets) }
        }
    }

    /// `text` with every occurrence of each secret replaced by the placeholder.
    static func scrub(_ text: String, secrets: [String]) -> String {
        var text = text
        for secret in secrets where text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: placeholder)
        }
        return text
    }

    /// The header's value, or the placeholder when the name is secret.
    func redact(header name: String, value: String) -> String {
        isSecretHeader(name) ? Self.placeholder : value
    }

    /// The URL as text with user information and secret query values replaced.
    func redact(url: URL) -> String { redact(urlString: url.absoluteString) }

    func redact(urlString: String) -> String {
        var text = Substring(urlString)
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = text[..<hash]
        }
        var query: Substring?
        if let mark = text.firstIndex(of: "?") {
            query = text[text.index(after: mark)...]
            text = text[..<mark]
        }
        var base = String(text)
        // scheme://user:password@host → scheme://<redacted>@host
        if let schemeEnd = base.range(of: "://") {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd = base[authorityStart...].firstIndex(of: "/") ?? base.endIndex
            if let at = base[authorityStart..<authorityEnd].lastIndex(of: "@") {
                base.replaceSubrange(authorityStart..<at, with: Self.placeholder)
            }
        }
        guard let query else { return base + fragment }
        let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            guard let equals = item.firstIndex(of: "=") else { return String(item) }
            let rawName = item[..<equals]
            let name = rawName.removingPercentEncoding ?? String(rawName)
            return isSecretQueryItem(name) ? "\(rawName)=\(Self.placeholder)" : String(item)
        }
        return base + "?" + items.joined(separator: "&") + fragment
    }
}
