import Foundation

/// A request's method and URL, described (secrets redacted) only when an error or log needs it.
struct RequestOrigin: Sendable, CustomStringConvertible {
    let method: HTTPMethod
    let url: URL
    let redactor: Redactor
    /// The request described, if there is one (not for a response made by hand): every secret
    /// value it carries is scrubbed from the description too, under whatever name the URL holds it.
    let request: PreparedRequest?

    init(method: HTTPMethod, url: URL, redactor: Redactor, request: PreparedRequest? = nil) {
        self.method = method
        self.url = url
        self.redactor = redactor
        self.request = request
    }

    var description: String {
        let text = "\(method.rawValue) \(redactor.redact(url: url))"
        guard let request else { return text }
        return Redactor.scrub(text, secrets: request.redactor.secretValues(of: request))
    }
}
