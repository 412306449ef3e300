import Foundation

/// One attempt of a request just before it goes, as interceptors and a provider's
/// ``ServiceProvider/adapt(_:)`` see it: final method, URL (query included), headers (the
/// provider's, the credentials, the request's own), body and timeout. Each may be changed, e.g.
/// to sign the request.
///
/// What is set here is checked before the attempt is sent (see `problem()`): what cannot be sent
/// fails the request with ``NetworkError/invalidRequest(_:)``, and nothing is sent.
///
/// Changing ``url`` to another origin (scheme, host or port) drops every secret the attempt
/// carried, as a redirect to another origin does: the credentials, the secret headers and the
/// secret query items. A secret set afterwards, knowing the new URL, is sent.
///
/// Its members are raw, credentials included; its ``description`` (and `dump`) is redacted
/// like the log.
public struct OutgoingRequest: Sendable {
    private let request: PreparedRequest
    private var changedURL: URL?
    private var changedBody: PreparedBody?
    /// Why a change cannot be sent (a new body for a streamed one), reported when the attempt is built.
    private(set) var refusal: String?
    /// The changes made through the public methods, in order, to make them again on the same
    /// request prepared anew (``replayed(on:)``).
    private var edits: [Edit] = []

    private enum Edit: Sendable {
        case setHeader(String, String, secret: Bool)
        case addHeader(String, String, secret: Bool)
        case removeHeader(String)
        case setQueryItem(String, String, secret: Bool)
        case setBody(Data, contentType: String?)
        case setURL(URL)
        case identifiesCaller(String, Bool)
    }

    /// The HTTP method. May be changed, e.g. to tunnel a method through `POST`.
    public var method: HTTPMethod {
        didSet { isModified = true }
    }

    /// The final URL, with the base path, the endpoint and the query (params and credentials).
    /// Raw: an API key in the query is in it; ``description`` shows it redacted.
    public var url: URL {
        get { changedURL ?? request.url }
        set { setURL(newValue) }
    }

    /// The exact bytes of the body (raw); `nil` without a body or when it is streamed (a file, a
    /// multipart form, a ``RequestBody/stream(_:length:contentType:)`` sequence): see ``bodyLength``.
    public private(set) var body: Data?
    /// The body's size in bytes, `0` without a body, or `nil` when it is not known before sending
    /// (a multipart form; a sequence without a declared `length`).
    public private(set) var bodyLength: Int?

    /// The request's ``BaseRequest/operationID``, or `nil` when it names none. Never sent.
    public var operationID: String? { request.resolved.operationID }

    /// How long this attempt may take: what is left of the request's timeout. Setting a longer one
    /// has no effect beyond the request's own timeout; zero or negative fails the request.
    public var timeout: Duration {
        get { Duration(clampingSeconds: attemptSeconds) }
        set { attemptSeconds = newValue.seconds }
    }

    /// ``timeout`` in seconds, as the prepared request keeps it.
    private(set) var attemptSeconds: TimeInterval {
        didSet { isModified = true }
    }

    /// The headers in the order they will be sent; a name may repeat (``addHeader(_:_:)``).
    private(set) var headerList: [(name: String, value: String)]
    /// Lowercased names of the headers set, added or replaced here (none of them goes to another origin).
    private(set) var setNames: Set<String> = []
    private(set) var declaredSecrets = SecretNames()
    private(set) var declaredPublic: Set<String> = []
    /// Header names declared here to identify the caller, or not, to the response cache (lowercased).
    private(set) var declaredCallers: [String: Bool] = [:]
    /// Whether anything changed, so an unchanged request is sent as it was prepared.
    private(set) var isModified = false
    /// Whether the URL is still at the provider's origin.
    private(set) var isAtProviderOrigin: Bool
    /// Decides which names are secret when ``setHeader(_:_:)`` is not told: the request's.
    var redactor: Redactor { request.redactor }

    init(of request: PreparedRequest) {
        self.request = request
        method = request.method
        headerList = request.headers
        switch request.body {
        case .bytes(let data)?: (body, bodyLength) = (data, data.count)
        case .file(_, let size)?: (body, bodyLength) = (nil, Int(clamping: size))
        case .multipart?: (body, bodyLength) = (nil, nil)
        case .stream(let upload)?: (body, bodyLength) = (nil, upload.length.map { Int(clamping: $0) })
        case nil: (body, bodyLength) = (nil, 0)
        }
        attemptSeconds = request.timeout
        isAtProviderOrigin = request.isAtProviderOrigin
    }

    /// The headers by name, as they will be sent; a repeated one shows its last value. Raw.
    public var headers: [String: String] {
        Dictionary(headerList.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// The origin the attempt goes to: the URL's scheme, host and port (the scheme's default when
    /// the URL names none), read without parsing ``url`` while at the provider's origin.
    public var origin: (scheme: String, host: String, port: Int) {
        if changedURL == nil, request.isAtProviderOrigin, case .endpoint = request.resolved.target {
            let location = request.resolved.location
            return (location.scheme.rawValue, location.host, location.port ?? (location.scheme == .https ? 443 : 80))
        }
        let url = self.url
        let scheme = url.scheme?.lowercased() ?? ""
        return (scheme, url.host ?? "", url.port ?? (scheme == "https" ? 443 : 80))
    }

    /// ``url`` as the log shows it: secret query values replaced by `<redacted>`, control
    /// characters escaped.
    public var redactedURL: String {
        let redactor = Redactor(names: request.redactor.names.union(declaredSecrets))
        let text = redactor.redact(urlString: changedURL?.absoluteString ?? request.urlText)
        return HeaderFields.printable(Redactor.scrub(text, secrets: request.redactor.secretValues(of: request)))
    }

    /// The first value of a header, looked up ignoring case; `nil` when absent. Raw.
    public func value(forHeader name: String) -> String? {
        headerList.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// Every value of a header, in order, looked up ignoring case.
    public func values(forHeader name: String) -> [String] {
        headerList.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }

    /// Sets a header, replacing every one of the same name (ignoring case). It is a secret
    /// (redacted in the log, errors and copy-as-curl, never sent to another origin, and its value
    /// keys the response cache) when the redaction rules already treat its name as one
    /// (`Authorization`, names with `token`, `secret`, `signature`, `auth`, …, and
    /// ``NetworkManager/redactedHeaderNames``); say so with ``setHeader(_:_:secret:)`` otherwise.
    public mutating func setHeader(_ name: String, _ value: String) {
        setHeader(name, value, secret: !declaredPublic.contains(SecretNames.folded(name)) && redactor.isSecretHeader(name))
    }

    /// Sets a header, replacing every one of the same name (ignoring case), declaring whether
    /// its value is a secret. `secret: false` makes a name that looks secret public (shown in the
    /// log and copy-as-curl, not part of the cache key); `Authorization`, `Proxy-Authorization`,
    /// `Cookie` and the names declared secret elsewhere (``NetworkManager/redactedHeaderNames``,
    /// `secretHeaderNames`, what an ``Authentication`` adds) stay secret.
    public mutating func setHeader(_ name: String, _ value: String, secret: Bool) {
        edits.append(.setHeader(name, value, secret: secret))
        replaceHeader(name, value, secret: secret)
    }

    private mutating func replaceHeader(_ name: String, _ value: String, secret: Bool) {
        headerList.removeAll { $0.name.equalsIgnoringASCIICase(name) }
        appendHeader(name, value, secret: secret)
    }

    /// Sets a header, replacing every one of the same name (ignoring case), declaring whether its
    /// value is a secret and whether it identifies the caller to the response cache, which serves
    /// a stored response only to requests whose identifying headers carry the same values.
    /// Secret headers identify the caller unless declared otherwise; public ones do not.
    /// `identifiesCaller: false` suits a secret that changes every attempt (a timestamped
    /// signature, a nonce); `true` a public value saying who asks (a key id). A signature declared
    /// `false` with nothing identifying beside it lets two keys share cached responses.
    public mutating func setHeader(_ name: String, _ value: String, secret: Bool, identifiesCaller: Bool) {
        setHeader(name, value, secret: secret)
        edits.append(.identifiesCaller(name, identifiesCaller))
        declaredCallers[SecretNames.folded(name)] = identifiesCaller
    }

    /// Adds a header line, keeping those of the same name: `Accept: text/html` and
    /// `Accept: application/json` go as two lines. Secret as for ``setHeader(_:_:)``.
    public mutating func addHeader(_ name: String, _ value: String) {
        addHeader(name, value, secret: !declaredPublic.contains(SecretNames.folded(name)) && redactor.isSecretHeader(name))
    }

    /// Adds a header line, declaring whether its value is a secret (see ``setHeader(_:_:secret:)``).
    public mutating func addHeader(_ name: String, _ value: String, secret: Bool) {
        edits.append(.addHeader(name, value, secret: secret))
        appendHeader(name, value, secret: secret)
    }

    private mutating func appendHeader(_ name: String, _ value: String, secret: Bool) {
        headerList.append((name, value))
        let folded = SecretNames.folded(name)
        setNames.insert(folded)
        if secret {
            declaredSecrets.insert(header: name)
            declaredPublic.remove(folded)
        } else {
            declaredSecrets.remove(header: name)
            declaredPublic.insert(folded)
        }
        isModified = true
    }

    /// Adds a header line, declaring whether its value is a secret and whether it identifies the
    /// caller (see ``setHeader(_:_:secret:identifiesCaller:)``).
    public mutating func addHeader(_ name: String, _ value: String, secret: Bool, identifiesCaller: Bool) {
        addHeader(name, value, secret: secret)
        edits.append(.identifiesCaller(name, identifiesCaller))
        declaredCallers[SecretNames.folded(name)] = identifiesCaller
    }

    /// The request's secret names with what was declared here: the rules for this attempt.
    var secrets: SecretNames {
        var secrets = request.secrets.union(declaredSecrets)
        for name in declaredPublic { secrets.insert(publicHeader: name) }
        for (name, identifies) in declaredCallers { secrets.insert(header: name, identifiesCaller: identifies) }
        return secrets
    }

    public mutating func removeHeader(_ name: String) {
        edits.append(.removeHeader(name))
        headerList.removeAll { $0.name.equalsIgnoringASCIICase(name) }
        isModified = true
    }

    /// Sets a query item of the URL, replacing every item of the same name (compared as
    /// decoded), or adding it at the end. Name and value are percent-encoded as `params` are.
    /// A `secret` value is redacted wherever the URL is shown, like a secret header's.
    public mutating func setQueryItem(_ name: String, _ value: String, secret: Bool = false) {
        edits.append(.setQueryItem(name, value, secret: secret))
        let current = url
        let text = current.absoluteString
        let fragmentStart = text.firstIndex(of: "#") ?? text.endIndex
        let beforeFragment = text[..<fragmentStart]
        let queryStart = beforeFragment.firstIndex(of: "?")
        var items = queryStart.map { beforeFragment[beforeFragment.index(after: $0)...].split(separator: "&").map(String.init) } ?? []
        items.removeAll { item in
            let rawName = item.prefix { $0 != "=" }
            return (rawName.removingPercentEncoding ?? String(rawName)) == name
        }
        items.append(ParameterValue.percentEncode(name) + "=" + ParameterValue.percentEncode(value))
        let path = queryStart.map { beforeFragment[..<$0] } ?? beforeFragment
        if let changed = URL(string: path + "?" + items.joined(separator: "&") + text[fragmentStart...]) {
            changedURL = changed
        } else {
            refusal = "the query item \"\(HeaderFields.printable(name))\" could not be set on the URL"
        }
        if secret { declaredSecrets.insert(queryItem: name) }
        isModified = true
    }

    /// Replaces the body with `data` (and `Content-Type` with `contentType`, if given). A streamed
    /// body cannot be replaced: the attempt then fails with ``NetworkError/invalidRequest(_:)``.
    public mutating func setBody(_ data: Data, contentType: String? = nil) {
        edits.append(.setBody(data, contentType: contentType))
        switch request.body {
        case .file?, .multipart?, .stream?:
            refusal = "a streamed body (a file, a multipart form or a sequence) cannot be replaced"
        case .bytes?, nil:
            changedBody = .bytes(data)
            body = data
            bodyLength = data.count
        }
        if let contentType { replaceHeader("Content-Type", contentType, secret: false) }
        isModified = true
    }

    /// Moves the attempt to `newURL`; another origin leaves every secret behind.
    private mutating func setURL(_ newURL: URL) {
        edits.append(.setURL(newURL))
        isModified = true
        let old = url
        changedURL = newURL
        guard let from = Origin(old), let to = Origin(newURL), from == to else {
            isAtProviderOrigin = false
            let rules = Redactor(names: secrets)
            headerList.removeAll { rules.isSecretHeader($0.name) || $0.name.equalsIgnoringASCIICase("Host") }
            changedURL = Self.removingSecretQueryItems(from: newURL, rules: rules)
            return
        }
    }

    /// `url` without the query items `rules` call secret (compared as decoded), the rest as written.
    private static func removingSecretQueryItems(from url: URL, rules: Redactor) -> URL {
        let text = url.absoluteString
        let fragmentStart = text.firstIndex(of: "#") ?? text.endIndex
        guard let mark = text[..<fragmentStart].firstIndex(of: "?") else { return url }
        let items = text[text.index(after: mark)..<fragmentStart].split(separator: "&", omittingEmptySubsequences: false)
        let kept = items.filter { item in
            let rawName = item.prefix { $0 != "=" }
            return !rules.isSecretQueryItem(rawName.removingPercentEncoding ?? String(rawName))
        }
        guard kept.count != items.count else { return url }
        let rebuilt = String(text[..<mark]) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&")) + text[fragmentStart...]
        return URL(string: rebuilt) ?? url
    }

    /// `request` with the changes made here made again, in the same order: a middleware's changes
    /// kept when the call's first attempt is prepared anew (fresh credentials).
    func replayed(on request: OutgoingRequest) -> OutgoingRequest {
        var replayed = request
        for edit in edits {
            switch edit {
            case .setHeader(let name, let value, let secret): replayed.setHeader(name, value, secret: secret)
            case .addHeader(let name, let value, let secret): replayed.addHeader(name, value, secret: secret)
            case .removeHeader(let name): replayed.removeHeader(name)
            case .setQueryItem(let name, let value, let secret): replayed.setQueryItem(name, value, secret: secret)
            case .setBody(let data, let contentType): replayed.setBody(data, contentType: contentType)
            case .setURL(let url): replayed.url = url
            case .identifiesCaller(let name, let identifies): replayed.declaredCallers[SecretNames.folded(name)] = identifies
            }
        }
        if method != request.method { replayed.method = method }
        if attemptSeconds != request.attemptSeconds { replayed.attemptSeconds = attemptSeconds }
        return replayed
    }

    var original: PreparedRequest { request }

    var changes: (url: URL?, body: PreparedBody?) { (changedURL, changedBody) }

    /// Why what was changed cannot be sent (`"set an invalid header: …"`), or `nil`: the method
    /// a token, every header set here free of control characters, the URL `http` or `https` with
    /// a host and no space or control character, no new body for a streamed one.
    func problem() -> String? {
        guard isModified else { return nil }
        if let refusal { return "made a change that cannot be sent: \(refusal)" }
        if let problem = method.problem { return "set an invalid method: \(problem)" }
        for header in headerList where setNames.contains(SecretNames.folded(header.name)) {
            do {
                try HeaderFields.validate(name: header.name, value: header.value)
            } catch {
                return "set an invalid header: " + (error.context?.reason ?? "")
            }
        }
        if let changedURL {
            let scheme = changedURL.scheme.map(SecretNames.folded)
            // Foundation and libcurl must both see a host (libcurl reads "http:///x" as host "x").
            guard scheme == "http" || scheme == "https", changedURL.host?.isEmpty == false, Origin(changedURL) != nil else {
                return "set a URL that is not http or https with a host: \"\(HeaderFields.printable(redactor.redact(url: changedURL)))\""
            }
            guard !changedURL.absoluteString.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
                return "set a URL with a space or a control character"
            }
        }
        guard attemptSeconds > 0 else { return "set a timeout that is not greater than zero" }
        return nil
    }
}

extension OutgoingRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `METHOD URL`, the headers and the body's size, secrets redacted (the request's secret
    /// names and those declared here).
    public var description: String {
        let redactor = Redactor(names: secrets)
        let headerText = headerList.map { "\($0.name): \(redactor.redact(header: $0.name, value: $0.value))" }.joined(separator: ", ")
        let size = body.map { "\($0.count) bytes" } ?? bodyLength.map { "\($0) bytes, streamed" } ?? (request.body == nil ? "no body" : "streamed body")
        let text = "\(method.rawValue) \(redactor.redact(urlString: changedURL?.absoluteString ?? request.urlText)) [\(headerText)] \(size)"
        // The request's secret values, wherever else they are (a header that quotes a token).
        return HeaderFields.printable(Redactor.scrub(text, secrets: request.redactor.secretValues(of: request)))
    }

    public var debugDescription: String { description }

    /// What `dump` shows: the redacted description, never the headers or body as they will be sent.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .struct)
    }
}
