import Foundation

/// Where a failed or cancelled download stopped, to continue it with
/// ``NetworkManager/perform(_:resumingFrom:isolation:)``; `Codable`, so it survives a restart.
///
/// Given only when the response named a validator (a strong `ETag`, else `Last-Modified`) for
/// `If-Range`; a resource that changed is downloaded whole again. Resume data that does not fit
/// the request is refused with ``NetworkError/invalidRequest(_:)`` before anything is sent. Call
/// ``discard()`` when you will not resume.
public struct ResumeData: Codable, Sendable, Hashable {
    /// The download's URL, secrets in its query `<redacted>` (the value is meant to be saved).
    public let url: String
    /// The response's strong `ETag`, else its `Last-Modified`: what `If-Range` sends.
    public let validator: String
    /// How many bytes of the body the partial file holds: where the next request continues.
    public let offset: Int64
    /// The partial file, beside the destination.
    public let partialFile: URL
    public let destination: URL

    public func discard() {
        unlink(partialFile.path)
    }

    /// Why this resume data cannot continue a download of `url` (redacted) to `destination`, or
    /// `nil`. The partial file must be the one a download to `destination` writes: a value read
    /// from disk could otherwise name any file to append to and move.
    func problem(url: String, destination: URL) -> String? {
        let shown = HeaderFields.printable(self.url)
        guard url == self.url else {
            return "the resume data is for \(shown), not \(HeaderFields.printable(url)); start this download without it"
        }
        // Compared as standardized paths: URLs of one directory differ by a trailing slash.
        func path(_ url: URL) -> String { url.standardizedFileURL.path }
        guard path(self.destination) == path(destination) else {
            return "the resume data is for a download to \(HeaderFields.printable(self.destination.path)), "
                + "not \(HeaderFields.printable(destination.path))"
        }
        let name = partialFile.lastPathComponent
        guard path(partialFile.deletingLastPathComponent()) == path(destination.deletingLastPathComponent()),
              name.hasPrefix(".\(destination.lastPathComponent)."), name.hasSuffix(".download"), !name.contains("/") else {
            return "the resume data names \(HeaderFields.printable(partialFile.path)), which is not a partial file of this download"
        }
        guard offset > 0, !validator.isEmpty, !validator.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return "the resume data's offset (\(offset)) or validator is not one a download gives"
        }
        let size = PendingDownload.size(of: partialFile)
        guard let size else { return "the partial file \(HeaderFields.printable(partialFile.path)) is gone; start the download again" }
        guard offset <= size else {
            return "the resume data's offset, \(offset) bytes, is beyond the \(size) bytes of the partial file; start the download again"
        }
        return nil
    }
}

extension NetworkError {
    /// Where a failed or cancelled download stopped (see ``ResumeData``); `nil` for any other error
    /// and for a download that cannot be continued.
    public var resumeData: ResumeData? { context?.resumeData }

    func resumable(_ resumeData: ResumeData) -> NetworkError {
        updatingContext { $0.resumeData = resumeData }
    }
}
