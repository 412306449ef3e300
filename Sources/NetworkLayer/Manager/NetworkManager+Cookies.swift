import Foundation

extension NetworkManager {
    /// Where this manager keeps the cookies servers set. Default ``CookieStorage/none``: no
    /// cookies are stored or sent (a server process serving many users must not mix their sessions).
    ///
    /// ```swift
    /// Net.cookieStorage = .inMemory                  // or .file(URL), persisted in the Netscape format
    /// _ = try await Net.perform(LoginRequest())      // the server's Set-Cookie is stored…
    /// _ = try await Net.perform(ProfileRequest())    // …and sent back where it applies
    /// ```
    ///
    /// libcurl's cookie engine applies domains, paths, expiry, `Secure` and the public-suffix
    /// list, per manager, across redirect hops. A `Cookie` header set on a request wins: it is
    /// sent alone, and that response's cookies are not stored. Cookie values never reach the log
    /// or recorded mocks; mocked requests neither send nor store cookies.
    ///
    /// A different value starts a new store (``CookieStorage/file(_:)`` loads the file, empty when
    /// unreadable); the same value keeps it. Safe to set from any thread; a request uses the store
    /// in force when it starts.
    public var cookieStorage: CookieStorage {
        get { settings.withLock { $0.cookieStorage } }
        set {
            // Built outside the lock: loading a file is I/O.
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

    /// The cookies this manager would send with a request to `url`: its host matches their
    /// domain, its path is under theirs, they have not expired, and a `Secure` one only for
    /// `https` (or localhost, a secure context for curl as for browsers). Empty when
    /// ``cookieStorage`` is ``CookieStorage/none``.
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
