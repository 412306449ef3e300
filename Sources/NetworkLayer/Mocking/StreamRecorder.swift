import Foundation

/// Record mode for a streamed response: its body is written to a file as the stream is read,
/// and becomes the mock (`<name>.sse`, `<name>.ndjson`, `<name>.bin`, with its sidecar) when the
/// stream ends, so that replaying it gives the same events.
///
/// What was read is recorded when the stream finishes or its reader ends it early (a chat
/// client leaving at `[DONE]`); a stream that failed is not recorded, and the log says so.
/// A secret value of the request in it is written as `<redacted>`, as ``MockStore`` writes a
/// whole body, even cut between two chunks (``ChunkScrubber``).
// @unchecked Sendable: the file and the scrubber are only used under `lock`'s protection (a
// stream's chunks arrive one at a time, but possibly on different threads).
final class StreamRecorder: @unchecked Sendable {
    private let store: MockStore
    private let response: HTTPResponse
    private let request: PreparedRequest
    private let bodyExtension: String
    private let temporary: URL
    private let log: NetworkLog?
    private let lock: Protected<Recording>

    private struct Recording {
        var file: FileHandle?
        var scrubber: ChunkScrubber
    }

    /// Starts recording `response` (its head) for `request` into `store`.
    /// - Throws: ``NetworkError/invalidRequest`` when the file cannot be created.
    init(recording response: HTTPResponse, for request: PreparedRequest, in store: MockStore, log: NetworkLog?) throws(NetworkError) {
        self.store = store
        self.response = response.head
        self.request = request
        self.log = log
        lock = Protected(Recording(file: nil, scrubber: ChunkScrubber(secrets: request.redactor.secretValues(of: request))))
        let kind = request.resolved.streamKind ?? .bytes
        bodyExtension = kind.fileExtension
        let destination = try store.file(named: store.recordingName(for: request), extension: bodyExtension)
        temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).recording")
        do {
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
            }
            let handle = try FileHandle(forWritingTo: temporary)
            lock.withLock { $0.file = handle }
        } catch {
            throw .invalidRequest(.init(request: request.redactedDescription,
                                        reason: "the stream could not be recorded at \(destination.path): \(error.localizedDescription)",
                                        underlyingError: error))
        }
    }

    /// Appends a chunk the stream's reader took.
    func write(_ chunk: Data) {
        lock.withLock { recording in
            guard recording.file != nil else { return }
            Self.append(Data(recording.scrubber.scrub(chunk)), to: &recording)
        }
    }

    private static func append(_ data: Data, to recording: inout Recording) {
        do {
            if !data.isEmpty { try recording.file?.write(contentsOf: data) }
        } catch {
            try? recording.file?.close()
            recording.file = nil  // the failure shows at the end: nothing is recorded
        }
    }

    /// The stream ended: the recording becomes the mock, or is dropped for a failed stream.
    func finish(_ ending: StreamBody.Ending) {
        let handle = lock.withLock { recording -> FileHandle? in
            Self.append(Data(recording.scrubber.finish()), to: &recording)
            defer { recording.file = nil }
            return recording.file
        }
        let closed = (try? handle?.close()) != nil
        if case .failed = ending {
            try? FileManager.default.removeItem(at: temporary)
            note("record mode: the stream failed, so it was not recorded")
            return
        }
        guard handle != nil, closed else {
            try? FileManager.default.removeItem(at: temporary)
            note("record mode: the stream could not be written to \(temporary.path)")
            return
        }
        do throws(NetworkError) {
            try store.record(response, for: request, bodyExtension: bodyExtension, movingBody: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            note("record mode: \(error.errorDescription ?? "\(error)")")
        }
    }

    private func note(_ message: String) {
        if let log { log.note(message + "\n", of: request) } else { FileHandle.standardError.write(Data((message + "\n").utf8)) }
    }
}
