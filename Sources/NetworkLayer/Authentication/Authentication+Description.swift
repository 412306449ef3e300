import Foundation

extension Authentication: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The kind of credential and where it goes, its secret parts (a user name too) `<redacted>`.
    public var description: String {
        let hidden = Redactor.placeholder
        return switch kind {
        case .fixedBearer: "Authentication.bearer(\(hidden))"
        case .bearer(let source): "Authentication.bearer(BearerTokenSource, \(source.canRefresh ? "refreshable" : "not refreshable"))"
        case .basic: "Authentication.basic(username: \(hidden), password: \(hidden))"
        case .header(let name, _): "Authentication.apiKey(\(hidden), header: \(HeaderFields.printable(name)))"
        case .queryItem(let name, _): "Authentication.apiKey(\(hidden), queryItem: \(HeaderFields.printable(name)))"
        case .challenge(.negotiate, _, _): "Authentication.negotiate"
        case .challenge(let scheme, _, _): "Authentication.\(scheme)(user: \(hidden), password: \(hidden))"
        case .awsSigV4(let signer):
            "Authentication.awsSigV4(accessKeyID: \(hidden), secretAccessKey: \(hidden), sessionToken: "
                + (signer.sessionToken == nil ? "nil" : hidden) + ", region: \(HeaderFields.printable(signer.region)), "
                + "service: \(HeaderFields.printable(signer.service)))"
        }
    }

    public var debugDescription: String { description }

    /// What `dump` shows: the redacted description, never the credential.
    public var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }
}

extension BearerTokenSource: CustomReflectable {
    /// What `dump` shows: whether it can refresh; never a token it fetched or refreshed, nor its closures.
    public nonisolated var customMirror: Mirror {
        Mirror(self, children: ["canRefresh": canRefresh], displayStyle: .class)
    }
}
