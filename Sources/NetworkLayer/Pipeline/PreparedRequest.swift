import Foundation
import Synchronization

/// A request ready for a transport: every part final and validated. A class: the data path
/// (transport, transfer, response, log) shares it.
final class PreparedRequest: Sendable {
    let method: HTTPMethod
    /// The URL's text, exactly as libcurl gets it.
    let urlText: String
    /// `urlText` parsed by Foundation, made by the first reader of ``url`` (most requests never need it).
    private let parsedURL = AtomicLazyReference<ParsedURL>()
    /// In the order they will be sent; names unique ignoring case.
    let headers: [(name: String, value: String)]
    let body: PreparedBody?
    let timeout: TimeInterval
    /// The largest timeout enforced, in seconds (about 31 years); a larger one means no limit.
    static let timeoutCeiling: TimeInterval = 1e9
    let resolved: ResolvedRequest
    /// What every redaction and the redirect rules treat as secret (see ``SecretNames``).
    let secrets: SecretNames
    /// Lowercased names of the headers the provider's `adapt(_:)` set: none of them goes to another origin.
    let adaptedHeaderNames: Set<String>
    /// For a hop of a redirect, the request the app made: its secret values stay secrets in
    /// everything that describes the hop, even where the hop no longer carries them.
    let redirectedFrom: PreparedRequest?
    /// Whether this goes to the provider's own origin (scheme, host, port): only there do the
    /// provider's credentials, secret headers, `adapt(_:)` and Unix socket apply.
    let isAtProviderOrigin: Bool

    /// A request whose URL is known as text only: `urlText` must be one ``URLText/isPlainHTTP(_:)``
    /// accepts, so that parsing it later cannot fail and gives back the same text.
    init(method: HTTPMethod, urlText: String, headers: [(name: String, value: String)], body: PreparedBody?,
         timeout: TimeInterval, resolved: ResolvedRequest, secrets: SecretNames, adaptedHeaderNames: Set<String> = [],
         redirectedFrom: PreparedRequest? = nil, isAtProviderOrigin: Bool = true) {
        self.method = method
        self.urlText = urlText
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.resolved = resolved
        self.secrets = secrets
        self.adaptedHeaderNames = adaptedHeaderNames
        self.redirectedFrom = redirectedFrom
        self.isAtProviderOrigin = isAtProviderOrigin
    }

    /// A request whose URL Foundation parsed already; libcurl gets its `absoluteString`.
    convenience init(method: HTTPMethod, url: URL, headers: [(name: String, value: String)], body: PreparedBody?,
                     timeout: TimeInterval, resolved: ResolvedRequest, secrets: SecretNames, adaptedHeaderNames: Set<String> = [],
                     redirectedFrom: PreparedRequest? = nil, isAtProviderOrigin: Bool = true) {
        self.init(method: method, urlText: url.absoluteString, headers: headers, body: body, timeout: timeout, resolved: resolved,
                  secrets: secrets, adaptedHeaderNames: adaptedHeaderNames, redirectedFrom: redirectedFrom, isAtProviderOrigin: isAtProviderOrigin)
        _ = parsedURL.storeIfNil(ParsedURL(url))
    }

    /// Takes `other`'s parsed URL, if it has one (same text), rather than parsing it again.
    func shareParsedURL(of other: PreparedRequest) {
        if let parsed = other.parsedURL.load() { _ = parsedURL.storeIfNil(parsed) }
    }

    func shareParsedURL(_ url: URL) {
        _ = parsedURL.storeIfNil(ParsedURL(url))
    }

    var url: URL {
        if let parsed = parsedURL.load() { return parsed.url }
        // Text URLText.isPlainHTTP accepted always parses (URLTextTests): the fallback only keeps
        // any path from trapping.
        let url = URL(string: urlText) ?? URL(fileURLWithPath: "/")
        return parsedURL.storeIfNil(ParsedURL(url)).url
    }

    private final class ParsedURL: Sendable {
        let url: URL
        init(_ url: URL) { self.url = url }
    }

    /// What the log, errors, copy-as-curl and record mode redact for this request: its
    /// ``secrets``, and names that look secret.
    var redactor: Redactor { Redactor(names: secrets) }

    /// `METHOD URL` with secrets redacted (by name, and every secret value this request carries
    /// wherever the URL holds it), for logs and errors.
    var redactedDescription: String { origin.description }

    /// The method and URL, for a response to describe its request lazily.
    var origin: RequestOrigin { RequestOrigin(of: self) }
}
