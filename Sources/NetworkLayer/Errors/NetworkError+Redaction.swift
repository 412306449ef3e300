import Foundation

extension NetworkError {
    /// This error with every occurrence of `secrets` (``Redactor/secretValues(of:)`` of the failed
    /// request) in its texts replaced by `<redacted>`: a server's message or an app's own error can
    /// quote a credential back.
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
