import Foundation

extension ResolvedRequest {
    /// The encoded query (`params` when they go there; empty otherwise) and the body with its
    /// content type: an explicit body, else `params` as JSON or a form for a method that sends
    /// them in its body (or as `parameterEncoding` says).
    func encodedParameters() throws(NetworkError) -> (query: String, body: (body: PreparedBody, contentType: String?)?) {
        let parameters = try parameters.get()
        if let body {
            return (parameters.queryString(arrays: arrayEncoding), try body.prepared(encoder: jsonEncoder, arrays: arrayEncoding))
        }
        switch parameterEncoding ?? (method.encodesParametersInQuery ? .query : .json) {
        case .query:
            return (parameters.queryString(arrays: arrayEncoding), nil)
        case .json:
            guard !parameters.isEmptyObject else { return ("", nil) }
            return ("", (.bytes(parameters.jsonData()), "application/json"))
        case .form:
            guard !parameters.isEmptyObject else { return ("", nil) }
            return ("", (.bytes(Data(parameters.queryString(arrays: arrayEncoding).utf8)), "application/x-www-form-urlencoded"))
        }
    }
}
