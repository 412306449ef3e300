import Foundation

/// The temporary file a download's body is written to, beside its destination so that the final
/// move is a rename: moved into place when its response is the request's result, removed otherwise.
///
/// A request with ``BaseRequest/resumesDownloads`` keeps it across attempts: when a transfer
/// breaks after part of the body, the next attempt asks for the rest (`Range`, with `If-Range`
/// and the validator the first response gave) and appends to the same file.
final class PendingDownload: Sendable {
    /// `.<name>.<random>.download` in the destination's directory.
    let file: URL
    let destination: URL

    /// What the transfers learn, and where the next one starts. Written on the engine thread,
    /// read by the pipeline after the transfer completes.
    private struct State {
        /// Where the current attempt continues the body (0: from the start).
        var resumeOffset: Int64 = 0
        /// The response's strong `ETag`, else its `Last-Modified`: what `If-Range` sends.
        var validator: String?
        var resumes = 0
        /// Whether the first attempt continued from ``ResumeData`` (its `Range` is the library's).
        var resumedFromData = false
    }
    private let state = Protected(State())

    init(beside destination: URL) {
        self.destination = destination
        file = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).download")
    }

    /// The download `resumeData` describes (checked by ``ResumeData/problem(url:destination:)``):
    /// its partial file cut to the offset (bytes written after the offset was taken, by a
    /// transfer that was ending, are not known to be the resource's).
    init(resuming resumeData: ResumeData) {
        destination = resumeData.destination
        file = resumeData.partialFile
        truncate(file.path, off_t(resumeData.offset))
        state.withLock {
            $0.resumeOffset = resumeData.offset
            $0.validator = resumeData.validator
            $0.resumedFromData = true
        }
    }

    var resumedFromData: Bool { state.withLock { $0.resumedFromData } }

    /// `error`, with resume data when the download can be continued (some bytes, a validator, a
    /// failure a later request may mend: the transfer broke or timed out, the host went away, it
    /// was cancelled), its partial file kept; otherwise the file is removed and `error` returned.
    func abandon(after error: NetworkError, of request: PreparedRequest) -> NetworkError {
        if error.resumeData != nil { return error }
        // A full disk is not mended by waiting: its part would only keep the disk full.
        let mendable = switch error {
        case .transport(let context): context.reason?.hasPrefix(CurlErrorMapping.diskWriteFailurePrefix) != true
        case .timeOut, .reachability, .cancelled: true
        default: false
        }
        guard mendable, request.method == .get, let validator, let size = Self.size(of: file), size > 0 else {
            discard()
            return error
        }
        return error.resumable(ResumeData(url: request.redactor.redact(url: request.url), validator: validator, offset: size,
                                          partialFile: file, destination: destination))
    }

    /// The size of the regular file at `url`; `nil` when there is none, or a link (a saved
    /// resume data's partial file must not lead elsewhere).
    static func size(of url: URL) -> Int64? {
        var info = stat()
        guard lstat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    var resumeOffset: Int64 { state.withLock { $0.resumeOffset } }

    var validator: String? { state.withLock { $0.validator } }

    /// Records the validator of a response whose body is being written (engine thread).
    func record(validator: String?) {
        state.withLock { $0.validator = validator }
    }

    /// The server sent the whole body again (the resource changed, or it ignored the range): the
    /// file starts over (engine thread, before the first byte of the new body).
    func restart() {
        state.withLock { $0.resumeOffset = 0 }
    }

    var size: Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: file.path)[.size]) as? NSNumber)?.int64Value ?? 0
    }

    /// Prepares the next attempt to continue from the file's end; returns that offset, or `nil`
    /// when there is nothing to continue: no validator, no byte since the last resume, or `limit`
    /// resumes made.
    func resume(limit: Int) -> Int64? {
        let size = self.size
        return state.withLock { state -> Int64? in
            guard size > state.resumeOffset, state.validator != nil, state.resumes < limit else { return nil }
            state.resumes += 1
            state.resumeOffset = size
            return size
        }
    }

    /// Removes the file (a redirect's or a retried attempt's body, or a failed transfer's part).
    func discard() {
        unlink(file.path)
    }

    /// Moves the download into place when its status is acceptable; otherwise keeps the start of
    /// the body (an error message, for validation) and removes the file.
    func finish(_ response: HTTPResponse, at destination: URL) throws(NetworkError) -> HTTPResponse {
        if response.statusCode == 416, resumeOffset > 0 {
            discard()
            throw .apiError(.init(request: response.requestDescription,
                                  reason: "the server refused to continue the download at byte \(resumeOffset) (416 Range Not Satisfiable): "
                                      + "the partial file no longer fits the resource, and was removed; download it again from the start",
                                  statusCode: 416, response: response.keptForError()))
        }
        guard response.expectations.acceptableStatuses.contains(response.statusCode) else {
            let handle = FileHandle(forReadingAtPath: file.path)
            if resumeOffset > 0 { try? handle?.seek(toOffset: UInt64(resumeOffset)) }
            let start = (try? handle?.read(upToCount: 1 << 20)) ?? nil
            try? handle?.close()
            discard()
            return response.replacingBody(start ?? Data())
        }
        guard rename(file.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw .transport(.init(request: response.requestDescription,
                                   reason: "the download could not be moved to \(destination.path): \(reason)"))
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber)?.int64Value ?? 0
        var response = response
        response.downloadedFile = DownloadedFile(url: destination, size: size)
        return response
    }
}
