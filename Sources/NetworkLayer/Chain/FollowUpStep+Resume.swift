import Foundation

/// A download continued from ``ResumeData`` (``NetworkManager/perform(_:resumingFrom:isolation:)``):
/// its first attempt asks for the rest of the partial file, which it appends to.
extension FollowUpStep {
    /// `prepared` asking for what follows the resume data's offset (`Range` with `If-Range`);
    /// `prepared` itself without resume data. Throws when the resume data does not fit the request.
    static func resumingIfAsked(_ prepared: PreparedRequest, for resolved: ResolvedRequest) throws(NetworkError) -> PreparedRequest {
        guard let resumeData = resolved.resumeData, !resolved.isMocked else { return prepared }
        guard let destination = resolved.downloadDestination, resolved.streamKind == nil, prepared.method == .get,
              prepared.headers.value(for: "Range") == nil else {
            throw .invalidRequest(.init(request: prepared.redactedDescription,
                                        reason: "only a GET download (a downloadDestination, no Range of its own) can continue from resume data"))
        }
        if let problem = resumeData.problem(url: prepared.redactor.redact(url: prepared.url), destination: destination) {
            throw .invalidRequest(.init(request: prepared.redactedDescription, reason: problem))
        }
        return prepared.resuming(from: resumeData.offset, ifRange: resumeData.validator)
    }

    /// The first attempt's download file: the resume data's partial file, else a new one.
    static func firstDownload(for resolved: ResolvedRequest) -> PendingDownload? {
        guard let resumeData = resolved.resumeData, resolved.downloadDestination != nil, !resolved.isMocked else { return newDownload(for: resolved) }
        return PendingDownload(resuming: resumeData)
    }
}
