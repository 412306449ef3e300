import Foundation

/// Where a manager keeps the cookies servers set: nowhere (the default), in memory, or in a file
/// in the Netscape format that curl, wget and browsers' exporters use.
///
/// ```swift
/// Net.cookieStorage = .inMemory
/// Net.cookieStorage = .file(URL(fileURLWithPath: "/var/lib/myapp/cookies.txt"))
/// Net.cookieStorage = .none
/// ```
///
/// Off by default: a server process that calls APIs for many users must not mix their sessions.
/// Give each user a ``NetworkManager`` of its own when they need separate cookies.
public enum CookieStorage: Sendable, Hashable {
    /// No store: cookies are neither kept nor sent, except a `Cookie` header you set yourself.
    case none
    /// A store in memory, for the manager's life (or until the storage is changed).
    case inMemory
    /// A store in memory, loaded from this file when set (a missing file is empty) and written back
    /// after each response and ``NetworkManager/removeAllCookies()``, session cookies included, as
    /// curl's `--cookie-jar` does. A failure to write is not the request's error.
    case file(URL)
}
