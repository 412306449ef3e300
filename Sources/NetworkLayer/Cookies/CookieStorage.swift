import Foundation

/// Where a manager keeps the cookies servers set: nowhere (the default, so that a server process's
/// users never share a session; give each a manager), in memory, or in a Netscape-format file.
public enum CookieStorage: Sendable, Hashable {
    /// No store: cookies are neither kept nor sent, except a `Cookie` header you set yourself.
    case none
    /// A store in memory, for the manager's life.
    case inMemory
    /// A store in memory, loaded from this file and written back after each response, as curl's
    /// `--cookie-jar` does. A failure to write is not the request's error.
    case file(URL)
}
