import Foundation

extension HTTPResponse {
    /// The standard reason phrase of a failing status (IANA's HTTP Status Code Registry: RFC 9110
    /// §15, RFC 6585, RFC 8470, RFC 7725, WebDAV's), or `nil` for one without a name there. The
    /// phrase a server wrote is not used: it may say anything, and HTTP/2 has none.
    static func reasonPhrase(for status: Int) -> String? {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 407: "Proxy Authentication Required"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 423: "Locked"
        case 424: "Failed Dependency"
        case 425: "Too Early"
        case 426: "Upgrade Required"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 451: "Unavailable For Legal Reasons"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        case 506: "Variant Also Negotiates"
        case 507: "Insufficient Storage"
        case 508: "Loop Detected"
        case 511: "Network Authentication Required"
        default: nil
        }
    }

    /// What the server answered, for an error's reason: "the server answered 503 Service
    /// Unavailable", or "the server answered status 599" for a status without a standard name.
    static func describeAnswer(_ status: Int) -> String {
        reasonPhrase(for: status).map { "the server answered \(status) \($0)" } ?? "the server answered status \(status)"
    }
}
