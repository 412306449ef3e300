/// An HTTP method: one of the standard ones (`.get`, `.post`, …) or any other RFC 9110 token
/// (`HTTPMethod(rawValue: "PROPFIND")`), case-sensitive and sent exactly as written. One that is not
/// a token fails the request with ``NetworkError/invalidRequest(_:)`` before anything is sent.
/// A method the library does not know counts as unsafe and not idempotent.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CaseIterable {
    public let rawValue: String

    /// A method named `rawValue`, sent exactly as written (checked when the request starts).
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    public static let allCases: [HTTPMethod] = [.get, .post, .put, .patch, .delete, .head, .options]

    /// Whether `params` travel in the query string (rather than a JSON body).
    var encodesParametersInQuery: Bool { self == .get || self == .head || self == .options }

    /// Whether repeating the request has the effect of sending it once (RFC 9110 §9.2.2).
    var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE": true
        default: false
        }
    }

    /// Why this method cannot be sent, or `nil` when it is an RFC 9110 token.
    var problem: String? {
        let isToken = rawValue.utf8.withContiguousStorageIfAvailable { !$0.isEmpty && $0.allSatisfy(HeaderFields.isTokenByte) }
            ?? (!rawValue.isEmpty && rawValue.utf8.allSatisfy(HeaderFields.isTokenByte))
        if isToken { return nil }
        return "the method \"\(HeaderFields.printable(rawValue))\" is not a valid HTTP method "
            + "(an RFC 9110 token: letters, digits and !#$%&'*+-.^_`|~ only)"
    }
}

extension HTTPMethod: CustomStringConvertible {
    public var description: String { rawValue }
}
