import Foundation

/// The mock files of one directory: which file answers a request, reading it, and recording one.
///
///     MockResponses/<name>.json        the body
///     MockResponses/<name>.meta.json   optional: status, headers, delay, or an `error`
///
/// A request without a `mockedResponseFilename` file is answered by `<operationID>.json`, then by
/// `<METHOD>/<URL path>.json`. A streamed response reads `<name>.sse`, `.ndjson` or, for a
/// ``ByteStream``, `.bin`, else `.json`, else any other extension.
struct MockStore: Sendable {
    let directory: URL
    /// Where the files read are noted, for ``MockRegistry/coverage``.
    var usage: MockUsage?

    /// The body file answering `request`, checked to lie inside the mock directory.
    func bodyFile(for request: PreparedRequest) throws(NetworkError) -> URL {
        try file(named: mockName(for: request), extension: "json")
    }

    /// The body file of the mock `name`, by the extension its response type reads.
    func bodyFile(named name: String, for request: PreparedRequest) throws(NetworkError) -> URL {
        guard let kind = request.resolved.streamKind else { return try file(named: name, extension: "json") }
        guard kind == .bytes else { return try file(named: name, extension: kind.fileExtension) }
        for preferred in ["bin", "json"] {
            let url = try file(named: name, extension: preferred)
            if FileManager.default.fileExists(atPath: url.path) { return url }
        }
        // Any other extension: the first in name order, beside where `<name>.bin` would be.
        let fallback = try file(named: name, extension: "bin")
        let base = fallback.deletingPathExtension().lastPathComponent + "."
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: fallback.deletingLastPathComponent().path)) ?? []
        for entry in entries.sorted() where entry.hasPrefix(base) && !entry.hasSuffix(".meta.json") && entry.count > base.count {
            return try file(named: name, extension: String(entry.dropFirst(base.count)))
        }
        return fallback
    }

    func recordingName(for request: PreparedRequest) -> String { mockName(for: request) }

    /// The sidecar beside the body file, checked the same way (it may be a link of its own).
    func sidecarFile(for request: PreparedRequest) throws(NetworkError) -> URL {
        try file(named: mockName(for: request), extension: "meta.json")
    }

    /// The name record mode writes: `mockedResponseFilename`, else the operation ID, else `METHOD/path`.
    private func mockName(for request: PreparedRequest) -> String {
        request.resolved.mockedResponseFilename ?? request.resolved.operationID ?? Self.methodPathName(for: request)
    }

    /// `METHOD/path`. Percent-escapes are decoded first, so that an encoded `..` is seen, and refused.
    static func methodPathName(for request: PreparedRequest) -> String {
        let path = request.url.path(percentEncoded: false)
        let trimmed = path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        return "\(request.method.rawValue)/\(trimmed.isEmpty ? "index" : trimmed)"
    }

    /// `<directory>/<name>.<extension>`, refusing any name that could reach outside the directory:
    /// absolute paths, `..`, backslashes, NUL and other control characters, percent-escapes, and
    /// symbolic links that resolve elsewhere.
    func file(named name: String, extension fileExtension: String) throws(NetworkError) -> URL {
        func refuse(_ why: String) -> NetworkError {
            .invalidRequest(.init(reason: "the mock name \"\(name.debugDescription.dropFirst().dropLast())\" is refused: \(why)"))
        }
        guard !name.isEmpty else { throw refuse("it is empty") }
        guard !name.hasPrefix("/"), !name.hasPrefix("~") else { throw refuse("it is an absolute path") }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw refuse("it contains a control character")
        }
        guard !name.contains("\\") else { throw refuse("it contains a backslash") }
        guard !name.contains("%") else { throw refuse("it contains a percent-escape") }
        let components = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !components.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) else {
            throw refuse("it contains an empty, '.' or '..' path component")
        }
        let root = directory.standardizedFileURL
        let candidate = root.appendingPathComponent("\(name).\(fileExtension)")
        // A symbolic link inside the directory must not lead out of it.
        let realRoot = root.resolvingSymlinksInPath().path
        let realCandidate = candidate.resolvingSymlinksInPath().path
        guard realCandidate.hasPrefix(realRoot.hasSuffix("/") ? realRoot : realRoot + "/") else {
            throw refuse("it resolves to \(realCandidate), outside the mock directory \(realRoot)")
        }
        return candidate
    }

    /// Reads a file whose path `file(named:extension:)` approved, by its resolved path and with
    /// `O_NOFOLLOW`, so a link swapped in after the check is refused rather than followed. With a
    /// `limit`, at most one byte more is read, for the parser to refuse a file over it.
    static func readWithoutFollowingLinks(_ url: URL, limit: Int? = nil) throws -> Data {
        let path = url.resolvingSymlinksInPath().path
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        if let limit { return try handle.read(upToCount: limit + 1) ?? Data() }
        return try handle.readToEnd() ?? Data()
    }

    /// The answer of the mock called `name`, or `nil` when neither file exists. A sidecar naming an
    /// `error` needs no body file.
    ///
    /// - Throws: ``NetworkError/invalidRequest`` for a name that would leave the directory, or an
    ///   invalid sidecar.
    func answer(named name: String, for request: PreparedRequest) throws(NetworkError) -> MockAnswer? {
        let bodyURL = try bodyFile(named: name, for: request)
        let sidecarURL = try file(named: name, extension: "meta.json")
        let limit = request.resolved.streamKind == .webSocket ? WebSocketScript.maximumFileSize : nil
        let body = try? Self.readWithoutFollowingLinks(bodyURL, limit: limit)
        let sidecarData = try? Self.readWithoutFollowingLinks(sidecarURL)
        usage?.looked(in: directory)
        if body != nil { usage?.read(bodyURL) }
        if sidecarData != nil { usage?.read(sidecarURL) }
        guard body != nil || sidecarData != nil else { return nil }
        var sidecar = Sidecar()
        if let sidecarData {
            do {
                sidecar = try Sidecar.parse(sidecarData, path: sidecarURL.path)
            } catch {
                throw error.describingRequest(request.redactedDescription)
            }
        }
        if let failure = sidecar.failure {
            return .failure(failure.error(request: request.redactedDescription, source: "the sidecar \(sidecarURL.path)"),
                            delay: sidecar.delayDuration)
        }
        let response = HTTPResponse(statusCode: sidecar.statusCode ?? 200,
                                    headers: sidecar.responseHeaders(defaults: ["Content-Type": Self.contentType(for: request, file: bodyURL)]),
                                    body: body ?? Data(), isMocked: true, origin: request.origin,
                                    expectations: request.resolved.expectations)
        if sidecar.eventDelay != nil || sidecar.cutAfterEvents != nil {
            return .stream(response, delay: sidecar.delayDuration, eventDelay: sidecar.eventDelayDuration ?? .zero,
                           cutAfterEvents: sidecar.cutAfterEvents)
        }
        return .response(response, delay: sidecar.delayDuration)
    }

    /// The `Content-Type` of a mock whose sidecar gives none: by response type, else by extension.
    private static func contentType(for request: PreparedRequest, file: URL) -> String {
        switch request.resolved.streamKind {
        case .events?: "text/event-stream"
        case .jsonLines?: "application/x-ndjson"
        case .bytes?:
            switch file.pathExtension {
            case "json": "application/json"
            case "sse": "text/event-stream"
            case "ndjson": "application/x-ndjson"
            case "txt": "text/plain"
            default: "application/octet-stream"
            }
        case .webSocket?: "application/octet-stream"
        case nil: "application/json"
        }
    }

    /// Writes `response` as the mock answering `request`. Secret headers are left out, and a secret
    /// value of the request the server echoed (in another header's name or value, or in the body) is
    /// written as `<redacted>`: recorded mocks end up in repositories. The body is otherwise written
    /// exactly as received. A stream's `movingBody` (scrubbed as it was written: ``StreamRecorder``)
    /// is moved into place, never read into memory.
    func record(_ response: HTTPResponse, for request: PreparedRequest, bodyExtension: String = "json",
                movingBody: URL? = nil) throws(NetworkError) {
        // A WebSocket's script is written as the session runs: RecordingWebSocketChannel.
        guard response.webSocket == nil else { return }
        let bodyURL = try file(named: mockName(for: request), extension: bodyExtension)
        let sidecarURL = try sidecarFile(for: request)
        let secrets = request.redactor.secretValues(of: request)
        var lines: [String: [String]] = [:]
        for (name, values) in response.headerBlock.valuesByName where !request.redactor.isSecretHeader(name) {
            // Two names that differ only by a secret they quoted become one: their values are kept.
            lines[Redactor.scrub(name, secrets: secrets), default: []] += values.map { Redactor.scrub($0, secrets: secrets) }
        }
        let headers = lines.mapValues(Sidecar.HeaderValues.init)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try FileManager.default.createDirectory(at: bodyURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            if let movingBody {
                if FileManager.default.fileExists(atPath: bodyURL.path) { try FileManager.default.removeItem(at: bodyURL) }
                try FileManager.default.moveItem(at: movingBody, to: bodyURL)
            } else {
                let body = Redactor.scrub(bytes: Array(response.body), secrets: secrets).map { Data($0) } ?? response.body
                try body.write(to: bodyURL, options: .atomic)
            }
            try encoder.encode(Sidecar(statusCode: response.statusCode, headers: headers))
                .write(to: sidecarURL, options: .atomic)
        } catch {
            throw .invalidRequest(.init(request: request.redactedDescription,
                                        reason: "the mock could not be recorded at \(bodyURL.path): \(error.localizedDescription)",
                                        underlyingError: error))
        }
    }
}
