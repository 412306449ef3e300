import Foundation

/// The temporary file a download's body is written to, beside its destination so that the final
/// move is a rename: moved into place when its response is the request's result, removed otherwise.
struct PendingDownload {
    /// `.<name>.<random>.download` in the destination's directory.
    let file: URL

    init(beside destination: URL) {
        file = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).download")
    }

    /// Removes the file (a redirect's or a retried attempt's body, or a failed transfer's part).
    func discard() {
        unlink(file.path)
    }

    /// Moves the download into place when its status is acceptable; otherwise keeps the start of
    /// the body (an error message, for validation) and removes the file.
    func finish(_ response: HTTPResponse, at destination: URL) throws(NetworkError) -> HTTPResponse {
        guard response.expectations.acceptableStatusCodes.contains(response.statusCode) else {
            let handle = FileHandle(forReadingAtPath: file.path)
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
