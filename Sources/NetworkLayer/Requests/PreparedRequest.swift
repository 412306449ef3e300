import Foundation

/// A request ready for a transport: every part final and validated. A class, so that handing it
/// along the data path (transport, transfer, response, log) shares it instead of copying it.
final class PreparedRequest: Sendable {
    let method: HTTPMethod
    let url: URL
    /// In the order they will be sent; names unique ignoring case.
    let headers: [(name: String, value: String)]
    let body: PreparedBody?
    let timeout: TimeInterval
    /// The largest timeout enforced, in seconds (about 31 years); a larger one means no limit.
    static let timeoutCeiling: TimeInterval = 1e9
    let snapshot: RequestSnapshot
    /// The names of this request's secret headers and query items: what its authentication
    /// added, what the manager, the provider, the request and the provider's `adapt(_:)`
    /// declared, and what looks secret. Every redaction and the redirect rules use it.
    let secrets: SecretNames
    /// Lowercased names of the headers the provider's `adapt(_:)` set: none of them goes to another origin.
    let adaptedHeaderNames: Set<String>
    /// For a hop of a redirect, the request the app made: its secret values stay secrets in
    /// everything that describes the hop, even where the hop no longer carries them.
    let redirectedFrom: PreparedRequest?

    init(method: HTTPMethod, url: URL, headers: [(name: String, value: String)], body: PreparedBody?,
         timeout: TimeInterval, snapshot: RequestSnapshot, secrets: SecretNames, adaptedHeaderNames: Set<String> = [],
         redirectedFrom: PreparedRequest? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.snapshot = snapshot
        self.secrets = secrets
        self.adaptedHeaderNames = adaptedHeaderNames
        self.redirectedFrom = redirectedFrom
    }

    /// What the log, errors, copy-as-curl and record mode redact for this request: its
    /// ``secrets``, and names that look secret.
    var redactor: Redactor { Redactor(names: secrets) }

    /// `METHOD URL` with secrets redacted (by name, and every secret value this request carries
    /// wherever the URL holds it), for logs and errors.
    var redactedDescription: String { origin.description }

    /// The method and URL, for a response to describe its request lazily.
    var origin: RequestOrigin { RequestOrigin(method: method, url: url, redactor: redactor, request: self) }
}
