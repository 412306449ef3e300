import Foundation

/// One cookie in a manager's store, as libcurl's cookie engine keeps it (``NetworkManager/cookies(for:)``).
public struct Cookie: Sendable, Equatable {
    public var name: String
    /// The value, raw. A secret: the log, recorded mocks, `description` and `dump` never show it.
    public var value: String
    /// The host; a leading dot (`.example.com`) means its subdomains too.
    public var domain: String
    /// The path prefix the cookie is sent for.
    public var path: String
    /// When the cookie expires, or `nil` for a session cookie.
    public var expires: Date?
    /// Whether the cookie is sent over `https` (and to `localhost`) only.
    public var isSecure: Bool
    /// Whether the server marked it `HttpOnly`.
    public var isHTTPOnly: Bool

    public init(name: String, value: String, domain: String, path: String = "/", expires: Date? = nil,
                isSecure: Bool = false, isHTTPOnly: Bool = false) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
    }
}
