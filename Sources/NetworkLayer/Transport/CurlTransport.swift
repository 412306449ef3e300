internal import CCurl
import Foundation
import Synchronization

/// Sends requests through the shared ``CurlEngine``: one transfer per hop, redirects followed
/// here (at most 10, http and https only, credentials dropped when the origin changes), downloads
/// moved into place when complete. A streaming request returns at the final response's headers,
/// its body still arriving through ``HTTPResponse/stream``; a redirect's stream is dropped
/// (which cancels it) before the next hop.
struct CurlTransport: Transport {
    static let maximumRedirects = 10
    /// Whether `status` is a redirect this transport follows (301, 302, 303, 307, 308): a switch,
    /// where a `Set<Int>` lookup hashed every response's status.
    static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    nonisolated(nonsending) func send(_ request: PreparedRequest, options: TransferOptions) async throws(NetworkError) -> HTTPResponse {
        let engine = try CurlEngine.shared.get()
        let started = ContinuousClock.now
        let streaming = request.snapshot.streamKind != nil
        let destination = streaming ? nil : request.snapshot.downloadDestination
        // libcurl reads nothing of a body declared empty: its sequence is checked to be empty first.
        if case .stream(let upload)? = request.body, upload.length == 0 { try await upload.confirmEmpty(request.redactedDescription) }
        var current = request
        var hops = 0
        while true {
            let temporary = destination.map(Self.temporaryFile(beside:))
            let response: HTTPResponse
            do {
                if options.unixSocketPath == nil, options.clientCertificate == nil {  // as they are (forHop would copy them)
                    response = try await transfer(current, options: options, engine: engine, downloadTo: temporary, streaming: streaming)
                } else {
                    response = try await transfer(current, options: options.forHop(to: current, from: request), engine: engine,
                                                  downloadTo: temporary, streaming: streaming)
                }
            } catch {
                if let temporary { unlink(temporary.path) }
                throw error
            }
            if Self.isRedirect(response.statusCode), let location = response.redirectLocation {
                if let temporary { unlink(temporary.path) }
                guard hops < Self.maximumRedirects else {
                    throw .transport(.init(request: request.redactedDescription,
                                           reason: "the server redirected more than \(Self.maximumRedirects) times"))
                }
                hops += 1
                let elapsed = ContinuousClock.now - started
                let next = try current.redirected(to: location, status: response.statusCode,
                                                  remainingTimeout: request.timeout - elapsed.seconds, from: request)
                // 307 and 308 (301 and 302 but for a POST) keep the body: a streamed one cannot go again.
                if next.sendsBodyOnce {
                    throw current.cannotSendBodyAgain(after: response, "the server redirected with \(response.statusCode)")
                }
                current = next
                continue
            }
            guard let temporary, let destination else { return response }
            return try Self.finishDownload(response, from: temporary, to: destination)
        }
    }

    /// One hop: a transfer on the engine, cancelled with the calling task.
    private nonisolated(nonsending) func transfer(_ request: PreparedRequest, options: TransferOptions, engine: CurlEngine,
                          downloadTo: URL?, streaming: Bool) async throws(NetworkError) -> HTTPResponse {
        let transfer = try engine.makeTransfer(for: request, options: options, downloadTo: downloadTo, streaming: streaming)
        // The result crosses from the engine thread to this task through the concurrency runtime,
        // which ThreadSanitizer cannot see into: the release/acquire pair states the ordering
        // that resuming the continuation provides (both are no-ops outside TSan builds).
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<HTTPResponse, NetworkError>, Never>) in
                engine.start(transfer) { (result: consuming Result<HTTPResponse, NetworkError>) in
                    nl_tsan_release(Unmanaged.passUnretained(transfer).toOpaque())
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            engine.cancel(transfer)
        }
        nl_tsan_acquire(Unmanaged.passUnretained(transfer).toOpaque())
        switch consume result {  // moved out, not copied as `get()` would
        case .success(let response): return response
        case .failure(let error): throw error
        }
    }

    /// `.<name>.<random>.download` in the destination's directory, so the final move is a rename.
    private static func temporaryFile(beside destination: URL) -> URL {
        destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).download")
    }

    /// Moves a complete download into place when its status is acceptable; otherwise keeps the
    /// start of the body (an error message, for validation) and removes the file.
    private static func finishDownload(_ response: HTTPResponse, from temporary: URL, to destination: URL)
        throws(NetworkError) -> HTTPResponse
    {
        guard response.expectations.acceptableStatuses.contains(response.statusCode) else {
            let handle = FileHandle(forReadingAtPath: temporary.path)
            let start = (try? handle?.read(upToCount: 1 << 20)) ?? nil
            try? handle?.close()
            unlink(temporary.path)
            return response.replacingBody(start ?? Data())
        }
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw .transport(.init(request: response.requestDescription,
                                   reason: "the download could not be moved to \(destination.path): \(reason)"))
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber)?.int64Value ?? 0
        var response = response
        response.downloadedFile = DownloadedFile(url: destination, size: size)
        return response
    }
}
