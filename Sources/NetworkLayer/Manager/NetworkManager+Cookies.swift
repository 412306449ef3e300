import Foundation

extension NetworkManager {
    /// Where this manager keeps the cookies servers set. Default ``CookieStorage/none``: none stored
    /// or sent (a server process must not mix its users' sessions). A request's own `Cookie` header
    /// wins. Cookie values never reach the log or recorded mocks.
    public var cookieStorage: CookieStorage {
        get { settings.withLock { $0.cookieStorage } }
        set {
            guard newValue != cookieStorage else { return }
            let jar: CookieJar?
            switch newValue {
            case .none: jar = nil
            case .inMemory: jar = try? CookieJar(file: nil)
            case .file(let url): jar = try? CookieJar(file: url)
            }
            settings.withLock {
                $0.cookieStorage = jar == nil ? .none : newValue
                $0.cookieJar = jar
            }
        }
    }

    /// The cookies this manager would send with a request to `url`. Empty without a store.
    public func cookies(for url: URL) -> [Cookie] {
        guard let jar = settings.withLock({ $0.cookieJar }), let lines = try? jar.lines() else { return [] }
        let now = Date()
        return lines.compactMap(Cookie.init(netscapeLine:)).filter { $0.applies(to: url, at: now) }
    }

    /// Removes every cookie from this manager's store (and its file, for ``CookieStorage/file(_:)``).
    public func removeAllCookies() {
        guard let jar = settings.withLock({ $0.cookieJar }) else { return }
        try? jar.removeAll()
    }
}
