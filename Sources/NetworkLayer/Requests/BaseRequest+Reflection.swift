import Foundation

extension BaseRequest: CustomReflectable {
    /// What `dump` shows of a request: method, endpoint and headers redacted, the names of its
    /// params (never values), its body's kind, timeout and provider type. A subclass's own stored
    /// properties are not shown: they may hold what the request is built from (a token, a password).
    public var customMirror: Mirror {
        let provider = serviceProvider
        let redactor = Redactor(names: SecretNames(headers: provider.secretHeaderNames.union(secretHeaderNames),
                                                   queryItems: provider.secretQueryItemNames.union(secretQueryItemNames)))
        let headers = additionalHeaders.sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { HeaderFields.printable("\($0.key): \(redactor.redact(header: $0.key, value: $0.value))") }
        var children: [(label: String?, value: Any)] = [
            ("httpMethod", httpMethod.rawValue),
            ("endpoint", HeaderFields.printable(redactor.redact(urlString: endpoint))),
            ("additionalHeaders", headers),
            ("params", params.keys.sorted().map(HeaderFields.printable)),
        ]
        if let body { children.append(("body", body)) }
        children += [("requestTimeout", requestTimeout), ("serviceProvider", String(describing: type(of: provider)))]
        // As `Self`, the subject type is the request's own class (`MyApp.OrdersRequest`), as
        // `print(request)` shows it, not `BaseRequest<Response>`.
        func mirror<Subject>(_: Subject.Type) -> Mirror {
            guard let subject = self as? Subject else { return Mirror(self, children: children, displayStyle: .class) }
            return Mirror(subject, children: children, displayStyle: .class, ancestorRepresentation: .suppressed)
        }
        return _openExistential(type(of: self) as Any.Type, do: mirror)
    }
}
