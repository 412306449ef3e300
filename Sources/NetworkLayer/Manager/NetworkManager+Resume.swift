import Foundation

extension NetworkManager {
    /// Performs a download from where an earlier one stopped (``NetworkError/resumeData``; `nil`: from the start).
    /// A `200` starts the file over; a `416` fails with ``NetworkError/apiError(_:)`` and removes the partial file.
    /// - Throws: only ``NetworkError``; ``NetworkError/invalidRequest(_:)``, nothing sent, for resume
    ///   data of another URL or destination, or with a missing or short partial file.
    public func perform<Response>(
        _ request: BaseRequest<Response>,
        resumingFrom resumeData: ResumeData?,
        isolation: isolated (any Actor)? = #isolation
    ) async throws(NetworkError) -> Response {
        try await execute(request.resolved(with: settings.withLock { $0 }, resumingFrom: resumeData), parser: request.parser).value
    }
}
