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
    /// A store in memory, loaded from this file when set (a missing file is an empty store) and
    /// written back to it, in the Netscape format, after each response and after
    /// ``NetworkManager/removeAllCookies()``. Session cookies are written too, as curl's
    /// `--cookie-jar` does. A file that cannot be written is not an error of the request.
    case file(URL)
}
