import Foundation

/// A request's method and URL, described (secrets redacted) only when an error or log needs it.
struct RequestOrigin: Sendable, CustomStringConvertible {
    let method: HTTPMethod
    let redactor: Redactor
    private let source: Source

    /// Where the URL comes from: a request's, parsed only if someone reads it, or one given, or a
    /// request's as ``detached()`` kept it (with the secret values its description scrubs).
    private enum Source: Sendable {
        case request(PreparedRequest)
        case url(URL)
        case detached(URL, secrets: [String])
    }

    private init(method: HTTPMethod, redactor: Redactor, source: Source) {
        self.method = method
        self.redactor = redactor
        self.source = source
    }

    /// This origin without its request: what describes it (the URL, the secret values to scrub) is
    /// taken now. A response that outlives its call (in an error, or kept by the app) must not hold
    /// the request: through it, the middlewares, interceptors and provider that may hold that very
    /// error, a cycle nothing frees.
    func detached() -> RequestOrigin {
        guard case .request(let request) = source else { return self }
        return RequestOrigin(method: method, redactor: redactor,
                             source: .detached(request.url, secrets: request.redactor.secretValues(of: request)))
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
        case .url(let url), .detached(let url, _): url
        }
    }

    /// The request, if any; its secret values are scrubbed from the description under any name.
    var request: PreparedRequest? {
        if case .request(let request) = source { return request }
        return nil
    }

    /// The request's secret values, found again in anything that describes it.
    var secretValues: [String] {
        switch source {
        case .request(let request): request.redactor.secretValues(of: request)
        case .url: []
        case .detached(_, let secrets): secrets
        }
    }

    var description: String {
        let text = "\(method.rawValue) \(redactor.redact(url: url))"
        if case .url = source { return text }
        return Redactor.scrub(text, secrets: secretValues)
    }

    /// `headers` as sorted `Name: value` lines, redacted like the log's: a secret name's value is
    /// `<redacted>`, and the request's secret values are scrubbed from the others (a server may reflect them).
    func redactedHeaderLines(_ headers: [String: String]) -> [String] {
        let secrets = secretValues
        return headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { name, value in
            HeaderFields.printable("\(name): \(Redactor.scrub(redactor.redact(header: name, value: value), secrets: secrets))")
        }
    }
}

extension RequestOrigin: CustomReflectable {
    /// `METHOD URL`, redacted: never the request it may hold.
    var customMirror: Mirror { Mirror(self, children: ["request": description], displayStyle: .struct) }
}
