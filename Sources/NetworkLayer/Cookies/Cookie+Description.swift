import Foundation

extension Cookie: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The cookie as a `Set-Cookie` line would carry it, its value `<redacted>`.
    public var description: String {
        var text = "\(name)=\(Redactor.placeholder); Domain=\(domain); Path=\(path)"
        if let expires { text += "; Expires=\(expires.formatted(.iso8601))" }
        if isSecure { text += "; Secure" }
        if isHTTPOnly { text += "; HttpOnly" }
        return HeaderFields.printable(text)
    }

    public var debugDescription: String { description }

    /// What `dump` shows: every attribute, the value `<redacted>`.
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "value": Redactor.placeholder, "domain": domain, "path": path,
                                "expires": expires as Any, "isSecure": isSecure, "isHTTPOnly": isHTTPOnly],
               displayStyle: .struct)
    }
}
