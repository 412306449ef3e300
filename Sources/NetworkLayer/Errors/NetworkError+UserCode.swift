import Foundation

extension NetworkError {
    /// The error the caller gets when the application's own code threw `error`: a provider's
    /// `createHTTPHeaders()`, `adapt(_:)` or `parseAndValidate`, or a request's `validator`.
    ///
    /// A `NetworkError` passes through (`response` filled in); a `CancellationError`, or any error
    /// while the task is cancelled, is ``cancelled``; a `DecodingError` about a response is
    /// ``serialization``; any other is kept as ``underlyingError`` of ``validation`` (it refused a
    /// response) or ``invalidRequest`` (it stopped the request from being built).
    ///
    /// - Parameters:
    ///   - hook: who threw, for the reason ("the provider's adapt(_:)").
    ///   - parsing: whether the code was turning the response into a value: its errors are then ``serialization``.
    static func thrown(_ error: any Error, by hook: String, request: String?,
                       response: HTTPResponse? = nil, parsing: Bool = false) -> NetworkError {
        if let error = error as? NetworkError {
            let error = response.map(error.caused(by:)) ?? error
            return request.map(error.describingRequest) ?? error
        }
        let kept = response?.keptForError()
        if error is CancellationError || Task.isCancelled {
            return .cancelled(Context(request: request, reason: "it was cancelled while \(hook) ran",
                                      statusCode: response?.statusCode, underlyingError: error, response: kept))
        }
        if let response {
            if let decoding = error as? DecodingError {
                return .serialization(Context(request: request, reason: HTTPResponse.describe(decoding),
                                              statusCode: response.statusCode, underlyingError: error, response: kept))
            }
            if parsing {
                return .serialization(Context(request: request,
                                              reason: "\(hook) could not read the response (status \(response.statusCode)): \(error.localizedDescription)",
                                              statusCode: response.statusCode, underlyingError: error, response: kept))
            }
            return .validation(Context(request: request,
                                       reason: "\(hook) refused the response (status \(response.statusCode)): \(error.localizedDescription)",
                                       statusCode: response.statusCode, underlyingError: error, response: kept))
        }
        return .invalidRequest(Context(request: request, reason: "\(hook) failed: \(error.localizedDescription)",
                                       underlyingError: error))
    }
}
