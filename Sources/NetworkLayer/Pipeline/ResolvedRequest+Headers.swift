import Foundation

extension ResolvedRequest {
    /// The provider's headers, then the credentials', then the request's, each replacing an
    /// earlier one of the same name; then the body's `Content-Type` unless one is set.
    func mergedHeaders(_ providerHeaders: [String: String], credentials: [(name: String, value: String)],
                       contentType: String?) throws(NetworkError) -> [(name: String, value: String)] {
        var headers = try HeaderFields.merged(providerHeaders, credentials, overriddenBy: additionalHeaders)
        if let contentType, headers.value(for: "Content-Type") == nil {
            try HeaderFields.validate(name: "Content-Type", value: contentType)
            headers.append(("Content-Type", contentType))
        }
        if let webSocket { try webSocket.addHandshakeHeaders(to: &headers) }
        return headers
    }

    /// The provider's headers that may go to another origin: none that is secret by name (declared,
    /// or looking secret).
    func publicHeaders(_ headers: [String: String], secrets: SecretNames) -> [String: String] {
        let redactor = Redactor(names: secrets)
        return headers.filter { !redactor.isSecretHeader($0.key) }
    }
}
