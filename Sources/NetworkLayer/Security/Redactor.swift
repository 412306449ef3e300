import Foundation

/// Applies a request's ``SecretNames`` to text: replaces secret header and query values, and
/// every other occurrence of a secret value, with `<redacted>`.
///
/// Used for everything the library prints or puts in an error (the log, error descriptions,
/// record-mode sidecars, copy-as-curl): `names`, and the secret-looking names below as a safety net.
struct Redactor: Sendable {
    static let placeholder = "<redacted>"
    /// How many times text is percent-decoded when looking for a secret spelled with escapes.
    static let percentDecodingDepth = 3

    static let secretHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie",
        "x-api-key", "api-key", "apikey", "x-apikey",
    ]
    static let secretQueryNames: Set<String> = [
        "key", "api_key", "apikey", "api-key", "password", "passwd", "pwd", "sig", "signature",
        "code", "client_secret", "access_token", "refresh_token", "id_token", "token",
    ]
    /// Fragments that make any header or query name look secret.
    static let secretFragments = ["token", "secret", "password", "passwd", "apikey", "api-key", "api_key",
                                  "auth", "session", "credential", "cookie", "signature"]
    private static let secretFragmentBytes = secretFragments.map { Array($0.utf8) }

    /// Whether `lower` (a lowercased name) holds one of ``secretFragments``: for an ASCII name, by
    /// bytes, the same answer as Foundation's `contains` without its cost on every header of every
    /// request (Benchmarks/RESULTS.md); any other name keeps Foundation's comparison.
    static func holdsSecretFragment(_ lower: String) -> Bool {
        var lower = lower
        let ascii = lower.withUTF8 { name -> Bool? in
            guard name.allSatisfy({ $0 < 0x80 }) else { return nil }
            return secretFragmentBytes.contains { fragment in
                guard fragment.count <= name.count else { return false }
                for start in 0...(name.count - fragment.count) where name[start] == fragment[0] {
                    var matched = 1
                    while matched < fragment.count, name[start + matched] == fragment[matched] { matched += 1 }
                    if matched == fragment.count { return true }
                }
                return false
            }
        }
        return ascii ?? secretFragments.contains { lower.contains($0) }
    }

    /// Standard header names (lowercased) holding one of ``secretFragments`` that are public by
    /// design (a name declared secret still is): `Access-Control-Allow-Credentials` (a CORS flag);
    /// the challenges `WWW-Authenticate`, `Proxy-Authenticate` (RFC 9110), `Optional-WWW-Authenticate`
    /// and `Authentication-Control` (RFC 8053), which carry no credential; `Signature-Input` and
    /// `Accept-Signature` (RFC 9421), the parameters, not the signature. Still secret by name:
    /// `Authorization`, the cookies, `Authentication-Info` (Digest's `rspauth` lets the password be
    /// guessed offline) and `Signature` (a signed request can be replayed while it is valid).
    static let publicHeaderNames: Set<String> = [
        "access-control-allow-credentials", "www-authenticate", "proxy-authenticate", "optional-www-authenticate",
        "authentication-control", "signature-input", "accept-signature",
    ]

    static let `default` = Redactor()

    /// The names declared secret: for the manager's settings, what the user declared; for a
    /// prepared request, its whole ``SecretNames`` set.
    var names = SecretNames()

    init(names: SecretNames = SecretNames()) {
        self.names = names
    }

    /// Whether the list of secret-looking header names matches `name` (the safety net alone).
    static func looksSecret(header name: String) -> Bool {
        let lower = name.lowercased()
        return secretHeaderNames.contains(lower)
            || (!publicHeaderNames.contains(lower) && holdsSecretFragment(lower))
    }

    /// Whether the list of secret-looking query names matches `name` (the safety net alone).
    static func looksSecret(queryItem name: String) -> Bool {
        let lower = name.lowercased()
        return secretQueryNames.contains(lower) || holdsSecretFragment(lower)
    }

    func isSecretHeader(_ name: String) -> Bool {
        names.contains(header: name) || (!names.isDeclaredPublic(header: name) && Self.looksSecret(header: name))
    }

    func isSecretQueryItem(_ name: String) -> Bool {
        names.contains(queryItem: name) || Self.looksSecret(queryItem: name)
    }

    /// Whether a field of a JSON body or a multipart form holds a secret (used for log previews):
    /// a declared header or query name, or a secret-looking one.
    func isSecretField(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "key" || names.contains(queryItem: name) || names.contains(header: name)
            || Self.holdsSecretFragment(lower)
    }

    /// The secret values a request carries (credentials, secret headers, query items, JSON body
    /// fields, a URL's or the proxy's password), in every spelling ``withEchoedForms(_:)`` lists,
    /// so that the log scrubs them where a server echoes them back (a response preview).
    func secretValues(of request: PreparedRequest) -> [String] {
        Self.withEchoedForms(rawSecretValues(of: request))
    }

    /// The secret values exactly as the request carries them, at least 4 characters long; for a
    /// hop of a redirect, the original request's too.
    func rawSecretValues(of request: PreparedRequest) -> [String] {
        var secrets = request.redirectedFrom.map { $0.redactor.rawSecretValues(of: $0) } ?? []
        secrets += request.resolved.authentication?.hiddenValues ?? []
        if case .http(let url, let user, let password, _) = request.resolved.options.table.proxy {
            // What libcurl sends the proxy: the password given apart, else the URL's (ProxyConfiguration+Curl.swift).
            if let password { secrets.append(password) } else if user == nil, let password = url.password { secrets.append(password) }
        }
        if request.resolved.authentication?.sigV4 != nil { secrets += request.resolved.signatures.withLock { $0 } }
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
            if let password = components.password { secrets.append(password) }
            if let user = components.user, components.password.map(Self.marksTokenAsUser) ?? true {
                secrets.append(user)  // a token written as the user name, as git hosts take one
            }
        }
        if case .bytes(let body)? = request.body, body.count <= 1 << 20,
           let json = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) {
            collectSecretFields(json, into: &secrets)
        }
        if case .multipart(let form)? = request.body {
            for case .text(let name, let value) in form.parts where isSecretField(name) { secrets.append(value) }
        }
        // As carried and without surrounding spaces (what a server sees of a header). Short values
        // would scrub ordinary text; they are still redacted where they are named.
        return Array(Set(secrets + secrets.map { $0.trimmingCharacters(in: .whitespaces) }).filter { $0.count >= 4 })
    }

    /// Each value, plus its percent-encoded form, its JSON-escaped forms (Foundation's and ASCII-only
    /// encoders'), its forms with control characters escaped (as the log shows server text) and its
    /// ``base64Forms(of:)`` (slashes JSON-escaped too), longest first, so that scrubbing a long
    /// secret is not defeated by a shorter one inside it. No values, no work.
    static func withEchoedForms(_ values: [String]) -> [String] {
        guard !values.isEmpty else { return [] }
        var forms = Set(values)
        for value in values {
            for form in base64Forms(of: Array(value.utf8)) {
                forms.insert(form)
                if form.contains("/") { forms.insert(form.replacingOccurrences(of: "/", with: "\\/")) }
            }
            forms.insert(ParameterValue.percentEncode(value))
            forms.insert(jsonEscaped(value, asciiOnly: false))
            forms.insert(jsonEscaped(value, asciiOnly: true))
            forms.insert(jsonEscaped(value, asciiOnly: false).replacingOccurrences(of: "/", with: "\\/"))
            // As the log shows a value holding control characters: escaped (the same text for any other).
            forms.insert(value.escapingControlCharacters)
            forms.insert(value.escapingControlCharactersInBody)
        }
        return forms.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    /// Whether a URL's password says its user name is the credential: none (`https://TOKEN@host`),
    /// empty, or GitHub's `x-oauth-basic` (`https://TOKEN:x-oauth-basic@github.com`).
    static func marksTokenAsUser(_ password: String) -> Bool {
        password.isEmpty || password.lowercased() == "x-oauth-basic"
    }

    /// The shortest value whose base64 is also looked for inside a longer base64 text: 5 bytes,
    /// so that each of its embedded spellings is at least 6 characters (36 bits), which random
    /// base64 text matches by chance once in 2^36 positions.
    static let shortestEmbeddedBase64 = 5

    /// How `bytes` reads in base64: standard (RFC 4648 §4) and URL-safe (§5) alphabets, each padded
    /// and unpadded; and, for at least ``shortestEmbeddedBase64`` bytes, as part of a longer base64
    /// text (a token inside an encoded JSON document), at each of the three alignments a byte
    /// can start at in a group of three. There only the characters made of the value's bits alone
    /// are fixed: the one or two at each end that share bits with its neighbours are not part of the
    /// form, so they stay in the text (they carry at most 4 of the value's bits at each end).
    static func base64Forms(of bytes: [UInt8]) -> [String] {
        guard !bytes.isEmpty else { return [] }
        let padded = Data(bytes).base64EncodedString()
        var forms = [padded, String(padded.prefix { $0 != "=" })]
        if bytes.count >= shortestEmbeddedBase64 {
            for offset in 0..<3 {
                // Behind `offset` bytes of another value, character i spells bits 6i..<6i+6 of the
                // stream: the value's own are those within bits 8·offset..<8·(offset + count).
                let encoded = Array((Data(repeating: 0, count: offset) + bytes).base64EncodedString().utf8)
                let first = (8 * offset + 5) / 6
                let end = 8 * (offset + bytes.count) / 6
                forms.append(String(decoding: encoded[first..<end], as: UTF8.self))
            }
        }
        return forms + forms.map { form in
            String(form.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
        }
    }

    static func jsonEscaped(_ text: String, asciiOnly: Bool) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default:
                if scalar.value < 0x20 || (asciiOnly && scalar.value > 0x7F) {
                    for unit in String(scalar).utf16 {
                        let hex = String(unit, radix: 16)
                        escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    }
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
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

    /// `text` with every occurrence of each secret replaced by the placeholder, compared byte for
    /// byte (a `String` search compares characters, and would miss a secret next to a combining mark),
    /// and then every spelling of one with percent-escapes, which no list of forms can foresee: a
    /// hand-written URL or a server's `Location` may write `%6E` for `n`. Such a spelling is found in
    /// the text decoded, and the run of the text that spells it (escapes and all) is replaced.
    static func scrub(_ text: String, secrets: [String]) -> String {
        guard !secrets.isEmpty, let scrubbed = scrub(bytes: Array(text.utf8), secrets: secrets) else { return text }
        return String(decoding: scrubbed, as: UTF8.self)
    }

    /// `bytes` scrubbed as ``scrub(_:secrets:)`` scrubs text; `nil` when nothing was replaced. The
    /// bytes need not be UTF-8 (a recorded body): a secret is looked for as its UTF-8 bytes, and
    /// every other byte is kept as it is.
    static func scrub(bytes: [UInt8], secrets: [String]) -> [UInt8]? {
        guard !secrets.isEmpty else { return nil }
        var bytes = bytes
        var changed = false
        for secret in secrets {
            if let replaced = bytes.replacingBytes(Array(secret.utf8), with: Array(placeholder.utf8)) {
                bytes = replaced
                changed = true
            }
        }
        if let replaced = scrubbingPercentSpellings(bytes, secrets: secrets) {
            bytes = replaced
            changed = true
        }
        return changed ? bytes : nil
    }

    /// The most bytes a spelling of one of `secrets` can take: each byte escaped, and each byte of
    /// that escaped again, ``percentDecodingDepth`` times (`A`, `%41`, `%25%34%31`: three times
    /// longer each time). Text scrubbed in pieces keeps this many bytes of each piece for the
    /// next, so that no spelling is cut in two.
    static func longestSpelling(of secrets: [String]) -> Int {
        var factor = 1
        for _ in 0..<percentDecodingDepth { factor *= 3 }
        return (secrets.map(\.utf8.count).max() ?? 0) * factor
    }

    /// `bytes` with each run that spells a secret once its percent-escapes are decoded replaced by
    /// the placeholder; `nil` when there is none. Overlapping runs are replaced as one. Decoded up to
    /// ``percentDecodingDepth`` times: a URL in a query item (a redirect's target) is escaped twice.
    private static func scrubbingPercentSpellings(_ bytes: [UInt8], secrets: [String]) -> [UInt8]? {
        var runs: [Range<Int>] = []
        var level = bytes
        var sources: [Int] = []   // level[i] came from bytes[sources[i]..<sources[i + 1]], once decoded
        for depth in 0..<percentDecodingDepth where level.contains(UInt8(ascii: "%")) {
            let (decoded, decodedSources) = level.percentDecodedLenientlyWithSources()
            guard decoded.count < level.count else { break }   // no escape: the level before saw it all
            sources = depth == 0 ? decodedSources : decodedSources.map { sources[$0] }
            level = decoded
            for secret in secrets {
                let needle = Array(secret.utf8)
                guard !needle.isEmpty else { continue }
                var from = 0
                while let found = level.firstRange(ofBytes: needle, from: from) {
                    runs.append(sources[found.lowerBound]..<sources[found.upperBound])
                    from = found.lowerBound + 1
                }
            }
        }
        guard !runs.isEmpty else { return nil }
        runs.sort { $0.lowerBound < $1.lowerBound }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var copied = 0
        var index = 0
        while index < runs.count {
            var run = runs[index]
            index += 1
            while index < runs.count, runs[index].lowerBound < run.upperBound {
                run = run.lowerBound..<max(run.upperBound, runs[index].upperBound)
                index += 1
            }
            result += bytes[copied..<run.lowerBound]
            result += placeholder.utf8
            copied = run.upperBound
        }
        result += bytes[copied...]
        return result
    }

    func redact(header name: String, value: String) -> String {
        isSecretHeader(name) ? Self.placeholder : value
    }

    /// The URL as text with its password (`user:<redacted>@`), or a user information without one
    /// (a token written as the user name), and secret query values replaced.
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
        if let schemeEnd = base.range(of: "://") {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd = base[authorityStart...].firstIndex(of: "/") ?? base.endIndex
            if let at = base[authorityStart..<authorityEnd].lastIndex(of: "@") {
                let colon = base[authorityStart..<at].firstIndex(of: ":")
                let password = colon.map { String(base[base.index(after: $0)..<at]) }
                let hidesUser = colon == nil || password.map(Self.marksTokenAsUser) == true
                base.replaceSubrange((hidesUser ? authorityStart : base.index(after: colon!))..<at, with: Self.placeholder)
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
