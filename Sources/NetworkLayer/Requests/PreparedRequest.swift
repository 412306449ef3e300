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
    let redactor: Redactor

    init(method: HTTPMethod, url: URL, headers: [(name: String, value: String)], body: PreparedBody?,
         timeout: TimeInterval, snapshot: RequestSnapshot, redactor: Redactor) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.snapshot = snapshot
        self.redactor = redactor
    }

    /// `METHOD URL` with secrets redacted, for logs and errors.
    var redactedDescription: String { origin.description }

    /// The method and URL, for a response to describe its request lazily.
    var origin: RequestOrigin { RequestOrigin(method: method, url: url, redactor: redactor) }
}
