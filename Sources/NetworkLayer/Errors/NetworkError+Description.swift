import Foundation

extension NetworkError: CustomStringConvertible, CustomDebugStringConvertible {
    /// The case's name, the same in every release: `"timeOut"`, `"invalidCertificate"`,
    /// `"apiError"`… For a service's logs, metric labels and alerts, where the text of
    /// ``errorDescription`` (which names the request) would not group.
    ///
    /// ```swift
    /// catch {
    ///     metrics.increment("requests_failed", ["error": error.code])
    /// }
    /// ```
    public var code: String {
        switch self {
        case .generic: "generic"
        case .reachability: "reachability"
        case .timeOut: "timeOut"
        case .invalidCertificate: "invalidCertificate"
        case .serialization: "serialization"
        case .notFound: "notFound"
        case .unauthorizedAccess: "unauthorizedAccess"
        case .customUser: "customUser"
        case .cancelled: "cancelled"
        case .mockNotFound: "mockNotFound"
        case .invalidRequest: "invalidRequest"
        case .transport: "transport"
        case .apiError: "apiError"
        case .validation: "validation"
        }
    }

    /// The error in one [logfmt](https://brandur.org/logfmt) line, for a log that indexes
    /// fields: `error=` its ``code``, then what is known of `status`, `request` (method and
    /// URL, secrets redacted), `reason` and `underlying` (the type of the error underneath, with
    /// libcurl's `curl_code`):
    ///
    /// ```
    /// error=timeOut request="GET https://api.example.com/items" reason="no complete answer within the timeout of 10 s (…)" underlying=CurlError curl_code=28
    /// error=apiError status=503 request="GET https://api.example.com/items" reason="the server answered with status 503"
    /// ```
    ///
    /// Values with a space, `=` or `"` are quoted, and control characters escaped (`\n`): it is
    /// always one line. For ``customUser(description:recovery:code:)``: `code` and `description`;
    /// for ``generic(code:)``: `code`.
    public var logfmtDescription: String {
        var fields = [("error", code)]
        switch self {
        case .generic(let userCode):
            if let userCode { fields.append(("code", String(userCode))) }
        case .customUser(let description, _, let userCode):
            if let userCode { fields.append(("code", String(userCode))) }
            fields.append(("description", description))
        case .mockNotFound(let filename):
            fields.append(("looked_for", filename))
        default:
            guard let context else { break }
            if let status = context.statusCode { fields.append(("status", String(status))) }
            if let request = context.request { fields.append(("request", request)) }
            if let reason = context.reason { fields.append(("reason", reason)) }
            if let underlying = context.underlyingError {
                // Its type, not its text: an error of the app's own may say anything.
                fields.append(("underlying", String(describing: type(of: underlying))))
                if let curl = underlying as? CurlError { fields.append(("curl_code", String(curl.code))) }
            }
        }
        return fields.map { "\($0.0)=\(Self.logfmtValue($0.1))" }.joined(separator: " ")
    }

    /// A logfmt value: bare when it is a plain word, else quoted with `\` and `"` escaped;
    /// control characters escaped either way.
    static func logfmtValue(_ value: String) -> String {
        let plain = !value.isEmpty && value.unicodeScalars.allSatisfy { $0.value > 0x20 && $0 != "=" && $0 != "\"" && $0 != "\\" }
        if plain { return value.escapingControlCharacters }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"" + escaped.escapingControlCharacters + "\""
    }

    /// ``code``, then ``errorDescription``: `timeOut: The request timed out: no complete answer
    /// within the timeout of 10 s (…). (GET https://api.example.com/items)`. What `print(error)`
    /// and `"\(error)"` show.
    public var description: String {
        "\(code): \(errorDescription ?? code)"
    }

    /// The case and the parts of its context that are there, as Swift would print them without
    /// `Optional(…)`: `NetworkError.apiError(request: "GET https://…", reason: "…", statusCode: 503,
    /// response: 503 GET https://… (12 bytes))`. Secrets are redacted as in ``description``.
    public var debugDescription: String {
        var parts: [String] = []
        switch self {
        case .generic(let userCode):
            if let userCode { parts.append("code: \(userCode)") }
        case .customUser(let description, let recovery, let userCode):
            parts.append("description: \(String(reflecting: description))")
            if !recovery.isEmpty { parts.append("recovery: \(String(reflecting: recovery))") }
            if let userCode { parts.append("code: \(userCode)") }
        case .mockNotFound(let filename):
            parts.append("filename: \(String(reflecting: filename))")
        default:
            if let context { parts = context.presentParts.map { "\($0.label): \($0.text)" } }
        }
        return "NetworkError.\(code)" + (parts.isEmpty ? "" : "(\(parts.joined(separator: ", ")))")
    }
}

extension NetworkError.Context {
    /// The parts that are there, by their public names, each as `String(reflecting:)` shows it.
    var presentParts: [(label: String, text: String)] {
        var parts: [(String, String)] = []
        if let request { parts.append(("request", String(reflecting: request))) }
        if let reason { parts.append(("reason", String(reflecting: reason))) }
        if let statusCode { parts.append(("statusCode", String(statusCode))) }
        if let underlyingError { parts.append(("underlyingError", String(reflecting: underlyingError))) }
        // By its type: a server's body can quote a request's secret back.
        if let serverError { parts.append(("serverError", String(describing: type(of: serverError)))) }
        if let response { parts.append(("response", String(reflecting: response))) }
        return parts
    }
}
