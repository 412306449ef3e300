import Foundation

/// A request's method and URL, described (secrets redacted) only when an error or log needs it.
struct RequestOrigin: Sendable, CustomStringConvertible {
    let method: HTTPMethod
    let redactor: Redactor
    private let source: Source

    /// Where the URL comes from: a request's, parsed only if someone reads it, or one given.
    private enum Source: Sendable {
        case request(PreparedRequest)
        case url(URL)
    }

    /// The origin of a response made by hand: a URL and no request.
    init(method: HTTPMethod, url: URL, redactor: Redactor) {
        self.method = method
        self.redactor = redactor
        source = .url(url)
    }

    /// The origin of `request`, redacted by its own rules.
    init(of request: PreparedRequest) {
        method = request.method
        redactor = request.redactor
        source = .request(request)
    }

    var url: URL {
        switch source {
        case .request(let request): request.url
        case .url(let url): url
        }
    }

    /// The request, if any; its secret values are scrubbed from the description under any name.
    var request: PreparedRequest? {
        if case .request(let request) = source { return request }
        return nil
    }

    var description: String {
        let text = "\(method.rawValue) \(redactor.redact(url: url))"
        guard let request else { return text }
        return Redactor.scrub(text, secrets: request.redactor.secretValues(of: request))
    }

    /// `headers` as sorted `Name: value` lines, redacted like the log's: a secret name's value is
    /// `<redacted>`, and the request's secret values are scrubbed from the others (a server may reflect them).
    func redactedHeaderLines(_ headers: [String: String]) -> [String] {
        let secrets = request.map { $0.redactor.secretValues(of: $0) } ?? []
        return headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { name, value in
            HeaderFields.printable("\(name): \(Redactor.scrub(redactor.redact(header: name, value: value), secrets: secrets))")
        }
    }
}

extension RequestOrigin: CustomReflectable {
    /// `METHOD URL`, redacted: never the request it may hold.
    var customMirror: Mirror { Mirror(self, children: ["request": description], displayStyle: .struct) }
}
