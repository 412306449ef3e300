import Foundation

extension NetworkManager {
    /// Performs a download, continuing where an earlier one stopped: `resumeData` from the
    /// error of a download that failed or was cancelled (``NetworkError/resumeData``), in this
    /// process or, decoded from where it was saved, another.
    ///
    /// ```swift
    /// do {
    ///     file = try await Net.perform(download)
    /// } catch {
    ///     if let resumeData = error.resumeData { file = try await Net.perform(download, resumingFrom: resumeData) }
    /// }
    /// ```
    ///
    /// The request asks for the bytes after the partial file's (`Range`, with `If-Range` and the
    /// validator): a `206` continues the file; a `200` (the resource changed) starts it over; a
    /// `416` fails with ``NetworkError/apiError(_:)`` and removes the partial file. Resume data
    /// for another URL or destination, or whose partial file is missing or shorter than its
    /// offset, fails with ``NetworkError/invalidRequest(_:)`` before anything is sent. `nil`
    /// performs the download from the start.
    ///
    /// - Throws: only ``NetworkError``; a download that fails again carries new resume data.
    public func perform<Response>(
        _ request: BaseRequest<Response>,
        resumingFrom resumeData: ResumeData?,
        isolation: isolated (any Actor)? = #isolation
    ) async throws(NetworkError) -> Response {
        try await execute(request.resolved(with: settings.withLock { $0 }, resumingFrom: resumeData), parser: request.parser).value
    }
}
