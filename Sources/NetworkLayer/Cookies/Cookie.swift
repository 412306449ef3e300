import Foundation

/// One cookie in a manager's store, as libcurl's cookie engine keeps it.
///
/// Read them with ``NetworkManager/cookies(for:)``:
///
/// ```swift
/// Net.cookieStorage = .inMemory
/// _ = try await Net.perform(LoginRequest(user: "ada"))
/// let session = Net.cookies(for: URL(string: "https://api.example.com")!).first { $0.name == "session" }
/// ```
public struct Cookie: Sendable, Equatable {
    /// The cookie's name.
    public var name: String
    /// The cookie's value, raw. A secret: the log, recorded mocks and the cookie's own
    /// description and `dump` never show it.
    public var value: String
    /// The host the cookie belongs to. A leading dot (`.example.com`) means it is sent to the
    /// subdomains too (the server set a `Domain` attribute); without one it is sent to that host only.
    public var domain: String
    /// The path prefix the cookie is sent for, `/` for the whole host.
    public var path: String
    /// When the cookie expires, or `nil` for a session cookie (kept until the store is cleared or
    /// the process ends; a ``CookieStorage/file(_:)`` store writes it to the file too, as curl does).
    public var expires: Date?
    /// Whether the cookie is sent over `https` only (and to `localhost`, which curl and browsers
    /// treat as a secure context).
    public var isSecure: Bool
    /// Whether the server marked it `HttpOnly` (kept for the record; there are no scripts here).
    public var isHTTPOnly: Bool

    /// A cookie with the given attributes.
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
