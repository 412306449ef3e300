import Foundation

extension NetworkError {
    /// The error the caller gets when the application's own code threw `error`: a provider's
    /// `createHTTPHeaders()`, `adapt(_:)` or `parseAndValidate`, or a request's `validator`.
    ///
    /// - A `NetworkError` passes through, with `response` filled into its context.
    /// - A `CancellationError`, or any error thrown while the task is cancelled, is ``cancelled``.
    /// - A `DecodingError` about a response is ``serialization``.
    /// - Any other error is kept as ``underlyingError``: ``validation`` when it refused a
    ///   response, ``invalidRequest`` when it stopped the request from being built.
    ///
    /// - Parameters:
    ///   - hook: who threw, for the reason ("the provider's adapt(_:)").
    ///   - request: the request, described with secrets redacted.
    ///   - response: the response the code was judging, if any.
    ///   - parsing: whether the code was turning the response into a value (a request's
    ///     `parser`): any error of its own is then ``serialization``.
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
