import Foundation

extension NetworkError: CustomStringConvertible, CustomDebugStringConvertible {
    /// The case's name, the same in every release (`"timeOut"`, `"apiError"`…): for metric labels
    /// and alerts, where ``errorDescription`` (which names the request) would not group.
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
        case .circuitOpen: "circuitOpen"
        }
    }

    /// The error in one [logfmt](https://brandur.org/logfmt) line: `error=` its ``code``, then the
    /// known `status`, `reachability` (``reachabilityReason``), `request` (secrets redacted), `reason`
    /// and `underlying` (its type, with `curl_code`).
    /// ``customUser(description:recovery:code:)`` gives `code` and `description`, ``generic(code:)`` `code`.
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
            if let reason = reachabilityReason { fields.append(("reachability", reason.rawValue)) }
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

    /// A logfmt value: bare when a plain word, else quoted with `\` and `"` escaped; controls escaped.
    static func logfmtValue(_ value: String) -> String {
        let plain = !value.isEmpty && value.unicodeScalars.allSatisfy { $0.value > 0x20 && $0 != "=" && $0 != "\"" && $0 != "\\" }
        if plain { return value.escapingControlCharacters }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"" + escaped.escapingControlCharacters + "\""
    }

    /// ``code``, then ``errorDescription``: what `print(error)` and `"\(error)"` show.
    public var description: String {
        "\(code): \(errorDescription ?? code)"
    }

    /// The case and the parts of its context that are there, as Swift prints them without
    /// `Optional(…)`; secrets redacted as in ``description``.
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
        if let reachabilityReason { parts.append(("reachabilityReason", ".\(reachabilityReason.rawValue)")) }
        if let circuitOpenUntil { parts.append(("circuitOpenUntil", String(reflecting: circuitOpenUntil))) }
        if let underlyingError { parts.append(("underlyingError", String(reflecting: underlyingError))) }
        // By its type: a server's body can quote a request's secret back.
        if let serverError { parts.append(("serverError", String(describing: type(of: serverError)))) }
        if let response { parts.append(("response", String(reflecting: response))) }
        return parts
    }
}
