import Foundation

extension PreparedRequest {
    /// Whether the body is a sequence (``RequestBody/stream(_:length:contentType:)``), which the
    /// first attempt reads (a factory's, ``RequestBody/stream(length:contentType:_:)``, is made again for each): no retry, no redirect that keeps the body, no second try after a 401.
    var sendsBodyOnce: Bool {
        if case .stream(let upload)? = body { return !upload.isRepeatable }
        return false
    }

    /// The error for a request whose streamed body `response` would need sent again (a 307 or
    /// 308 redirect, a 401 after which the token was refreshed), with that response kept.
    func cannotSendBodyAgain(after response: HTTPResponse, _ what: String) -> NetworkError {
        let reason = "\(what), which needs the body sent again; a streamed body is read only once, so the request was not sent again. "
            + "Perform it again with a new sequence"
        let context = NetworkError.Context(request: redactedDescription, reason: reason, statusCode: response.statusCode,
                                           response: response.keptForError())
        return response.statusCode == 401 ? .unauthorizedAccess(context) : .transport(context)
    }
}
