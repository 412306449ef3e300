import Foundation

extension Authentication: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The kind of credential and where it goes, its secret parts `<redacted>`; a user name is shown
    /// unless it is the credential itself (no password).
    public var description: String {
        let hidden = Redactor.placeholder
        return switch kind {
        case .fixedBearer: "Authentication.bearer(\(hidden))"
        case .bearer(let source): "Authentication.bearer(BearerTokenSource, \(source.canRefresh ? "refreshable" : "not refreshable"))"
        case .basic(let username, let password): "Authentication.basic(username: \(Self.shown(username, password)), password: \(hidden))"
        case .header(let name, _): "Authentication.apiKey(\(hidden), header: \(HeaderFields.printable(name)))"
        case .queryItem(let name, _): "Authentication.apiKey(\(hidden), queryItem: \(HeaderFields.printable(name)))"
        case .challenge(.negotiate, _, _): "Authentication.negotiate"
        case .challenge(let scheme, let user, let password): "Authentication.\(scheme)(user: \(Self.shown(user, password)), password: \(hidden))"
        case .awsSigV4(let signer):
            "Authentication.awsSigV4(accessKeyID: \(hidden), secretAccessKey: \(hidden), sessionToken: "
                + (signer.sessionToken == nil ? "nil" : hidden) + ", region: \(HeaderFields.printable(signer.region)), "
                + "service: \(HeaderFields.printable(signer.service)))"
        }
    }

    public var debugDescription: String { description }

    /// A user name as descriptions show it: as it is, unless it is the credential (no password).
    private static func shown(_ user: String, _ password: String) -> String {
        password.isEmpty ? Redactor.placeholder : HeaderFields.printable(user)
    }

    /// What `dump` shows: the redacted description, never the credential.
    public var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }
}

extension BearerTokenSource: CustomReflectable {
    /// What `dump` shows: whether it can refresh; never a token it fetched or refreshed, nor its closures.
    public nonisolated var customMirror: Mirror {
        Mirror(self, children: ["canRefresh": canRefresh], displayStyle: .class)
    }
}
