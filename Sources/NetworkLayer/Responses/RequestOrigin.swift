import Foundation

/// A request's method and URL, described (secrets redacted) only when an error or log needs it.
struct RequestOrigin: Sendable, CustomStringConvertible {
    let method: HTTPMethod
    let url: URL
    let redactor: Redactor

    var description: String { "\(method.rawValue) \(redactor.redact(url: url))" }
}
