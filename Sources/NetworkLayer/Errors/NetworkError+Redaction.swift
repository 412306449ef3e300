import Foundation

extension NetworkError {
    /// This error with every occurrence of `secrets` in its texts (the request's description, the
    /// reason, a custom error's description and suggestion) replaced by `<redacted>`: a server's
    /// message or an app's own error can quote a credential back (`invalid key abc123…`).
    ///
    /// `secrets` is what ``Redactor/secretValues(of:)`` returns for the request that failed.
    func redactingSecrets(_ secrets: [String]) -> NetworkError {
        guard !secrets.isEmpty else { return self }
        if case .customUser(let description, let recovery, let code) = self {
            return .customUser(description: Redactor.scrub(description, secrets: secrets),
                               recovery: Redactor.scrub(recovery, secrets: secrets), code: code)
        }
        return updatingContext { context in
            context.request = context.request.map { Redactor.scrub($0, secrets: secrets) }
            context.reason = context.reason.map { Redactor.scrub($0, secrets: secrets) }
        }
    }
}
