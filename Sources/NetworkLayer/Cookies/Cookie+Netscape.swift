import Foundation

extension Cookie {
    /// Reads one line of libcurl's cookie list (Netscape format); `nil` for a line that is not a
    /// cookie. Never traps, whatever the line holds: the values come from servers.
    init?(netscapeLine line: String) {
        var text = Substring(line)
        var httpOnly = false
        if text.hasPrefix("#HttpOnly_") {
            httpOnly = true
            text = text.dropFirst("#HttpOnly_".count)
        } else if text.hasPrefix("#") {
            return nil
        }
        let fields = text.split(separator: "\t", maxSplits: 6, omittingEmptySubsequences: false)
        guard fields.count >= 6, !fields[0].isEmpty, !fields[5].isEmpty else { return nil }
        let includesSubdomains = fields[1].uppercased() == "TRUE"
        var host = String(fields[0])
        if host.hasPrefix(".") { host.removeFirst() }
        guard !host.isEmpty else { return nil }
        // Digits beyond Int64 are a date far away, anything else no date (a session cookie).
        let digits = fields[4]
        let seconds = Int64(digits) ?? (!digits.isEmpty && digits.utf8.allSatisfy { (0x30...0x39).contains($0) } ? Int64.max : 0)
        // Beyond year 9999, or before 1970: clamp rather than trust the number.
        let expires = seconds > 0 ? Date(timeIntervalSince1970: Double(min(seconds, 253_402_300_799))) : nil
        self.init(name: String(fields[5]), value: fields.count > 6 ? String(fields[6]) : "",
                  domain: includesSubdomains ? "." + host : host,
                  path: fields[2].isEmpty ? "/" : String(fields[2]),
                  expires: expires, isSecure: fields[3].uppercased() == "TRUE", isHTTPOnly: httpOnly)
    }

    /// Whether libcurl would send this cookie with a request to `url` at `now` (domain, path,
    /// expiry, and a secure cookie to `https` or localhost only).
    func applies(to url: URL, at now: Date = Date()) -> Bool {
        guard let rawHost = url.host?.lowercased() else { return false }
        let host = rawHost.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if let expires, expires <= now { return false }
        let domain = self.domain.lowercased()
        if domain.hasPrefix(".") {
            let base = domain.dropFirst()
            guard host == base || host.hasSuffix(domain) else { return false }
        } else {
            guard host == domain else { return false }
        }
        let requestPath = url.path.isEmpty ? "/" : url.path
        if requestPath != path {
            guard requestPath.hasPrefix(path), path.hasSuffix("/") || requestPath.dropFirst(path.count).hasPrefix("/") else { return false }
        }
        if isSecure {
            let scheme = url.scheme?.lowercased()
            guard scheme == "https" || host == "localhost" || host == "127.0.0.1" || host == "::1" else { return false }
        }
        return true
    }
}
