import Foundation

extension ProxyConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The configuration with its passwords `<redacted>`, the one given apart and the one in the URL;
    /// a user name is shown, unless it comes without a password (then it may be the credential).
    public var description: String {
        let hidden = Redactor.placeholder
        switch self {
        case .environment: return ".environment"
        case .none: return ".none"
        case .http(let url, let username, let password, let excluding):
            var text = ".http(\(Redactor.default.redact(url: url))"
            if let username { text += ", username: \(password?.isEmpty == false ? username : hidden)" }
            if password != nil { text += ", password: \(hidden)" }
            if !excluding.isEmpty { text += ", excluding: \(excluding)" }
            return HeaderFields.printable(text + ")")
        case .socks5(let url):
            return HeaderFields.printable(".socks5(\(Redactor.default.redact(url: url)))")
        }
    }

    public var debugDescription: String { description }

    /// What `dump` shows (of a manager's or a provider's settings too): the redacted description.
    public var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .enum) }
}
