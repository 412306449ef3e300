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
    let snapshot: RequestSnapshot
    /// What counts as a secret for this request: the manager's rules, plus the header names the
    /// provider's `adapt(_:)` declared secret.
    let redactor: Redactor
    /// Lowercased names of the headers the provider's `adapt(_:)` set: none of them goes to another origin.
    let adaptedHeaderNames: Set<String>

    init(method: HTTPMethod, url: URL, headers: [(name: String, value: String)], body: PreparedBody?,
         timeout: TimeInterval, snapshot: RequestSnapshot, redactor: Redactor, adaptedHeaderNames: Set<String> = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.snapshot = snapshot
        self.redactor = redactor
        self.adaptedHeaderNames = adaptedHeaderNames
    }

    /// `METHOD URL` with secrets redacted, for logs and errors.
    var redactedDescription: String { origin.description }

    /// The method and URL, for a response to describe its request lazily.
    var origin: RequestOrigin { RequestOrigin(method: method, url: url, redactor: redactor) }
}
