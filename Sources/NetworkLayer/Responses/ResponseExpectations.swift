import Foundation

/// What the response must satisfy, resolved from the request's and the provider's settings.
struct ResponseExpectations: Sendable {
    /// The statuses that pass validation, resolved once (``StatusCodes/resolved(request:requestRange:provider:)``).
    var acceptableStatuses = StatusCodes.success
    var decoder: JSONDecoder = JSONDecoder()
    var keyPath: String?
    var errorBodyType: (any ServerErrorBody.Type)?
    /// Whether FastJSON may stand in for `decoder`: the provider's and the manager's choice.
    var usesFastJSONDecoder = true
}
