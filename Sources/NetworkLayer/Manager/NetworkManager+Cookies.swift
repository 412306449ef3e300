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
    /// libcurl's cookie engine does the work, shared among this manager's transfers: domains,
    /// paths, expiry, `Secure` and the public-suffix list apply as curl applies them, and a cookie
    /// set on a redirect hop applies to the next hop. Each manager has its own store. A `Cookie`
    /// header you set on a request wins: that request is sent with your header only, and what
    /// its response sets is not stored. Cookie values never appear in the log or in recorded
    /// mocks. Mock mode does not touch the store: mocked requests neither send nor store cookies.
    ///
    /// Setting a different value starts a new store (``CookieStorage/file(_:)`` loads the file);
    /// setting the same value again keeps the store. A file that cannot be read starts empty.
    /// Safe to set from any thread; a request uses the store in force when it starts.
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
