import Foundation

/// The mock files of one directory: which file answers a request, reading it, and recording one.
///
/// Layout, for a request whose `mockedResponseFilename` is `ITunesSearchMockedResponse`:
///
///     MockResponses/ITunesSearchMockedResponse.json        the body
///     MockResponses/ITunesSearchMockedResponse.meta.json   optional: {"statusCode": 404, "headers": {...}, "delay": 0.5}
///                                                          or a failure: {"error": "timeOut", "delay": 0.5}
///
/// A request is also answered by `<METHOD>/<URL path>.json`, e.g. `MockResponses/GET/search.json`
/// for `GET /search`: when it has no `mockedResponseFilename`, or that file does not exist.
struct MockStore: Sendable {
    let directory: URL

    /// The body file answering `request`, checked to lie inside the mock directory.
    func bodyFile(for request: PreparedRequest) throws(NetworkError) -> URL {
        try file(named: mockName(for: request), extension: "json")
    }

    /// The sidecar beside the body file, checked the same way (it may be a link of its own).
    func sidecarFile(for request: PreparedRequest) throws(NetworkError) -> URL {
        try file(named: mockName(for: request), extension: "meta.json")
    }

    /// `mockedResponseFilename`, or `METHOD/path` without one: the name record mode writes.
    private func mockName(for request: PreparedRequest) -> String {
        request.snapshot.mockedResponseFilename ?? Self.methodPathName(for: request)
    }

    /// `METHOD/path`: `/users/42?x=1` → `GET/users/42`, `/` → `GET/index`. Percent-escapes are
    /// decoded first, so that an encoded `..` is seen, and refused, as what it is.
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
    /// `O_NOFOLLOW`, so a link swapped in after the check is refused rather than followed.
    static func readWithoutFollowingLinks(_ url: URL) throws -> Data {
        let path = url.resolvingSymlinksInPath().path
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        return try handle.readToEnd() ?? Data()
    }

    /// The answer of the mock called `name` (`<name>.json` and its sidecar `<name>.meta.json`),
    /// or `nil` when neither file exists. A sidecar without a body file answers with an empty
    /// body; a sidecar naming an `error` answers with that failure and needs no body file.
    ///
    /// - Throws: ``NetworkError/invalidRequest`` for a name that would leave the directory, or a
    ///   sidecar that is not valid (naming the file and the value).
    func answer(named name: String, for request: PreparedRequest) throws(NetworkError) -> MockAnswer? {
        let bodyURL = try file(named: name, extension: "json")
        let sidecarURL = try file(named: name, extension: "meta.json")
        let body = try? Self.readWithoutFollowingLinks(bodyURL)
        let sidecarData = try? Self.readWithoutFollowingLinks(sidecarURL)
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
                                    headers: ResponseHeaders(sidecar.headers ?? ["Content-Type": "application/json"]),
                                    body: body ?? Data(), url: request.url, isMocked: true, origin: request.origin,
                                    expectations: request.snapshot.expectations)
        return .response(response, delay: sidecar.delayDuration)
    }

    /// Writes `response` as the mock answering `request`: the body file and a sidecar with the
    /// status and headers. Secret headers (by the request's ``PreparedRequest/secrets`` and names
    /// that look secret, such as `Set-Cookie`) are left out, and a secret value of the request
    /// that the server echoed in another header is written as `<redacted>`: recorded mocks end up
    /// in repositories. The body is written exactly as received, since it is what the mock must
    /// answer with.
    func record(_ response: HTTPResponse, for request: PreparedRequest) throws(NetworkError) {
        let bodyURL = try bodyFile(for: request)
        let sidecarURL = try sidecarFile(for: request)
        let secrets = request.redactor.secretValues(of: request)
        let headers = response.headers.filter { !request.redactor.isSecretHeader($0.key) }
            .mapValues { Redactor.scrub($0, secrets: secrets) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try FileManager.default.createDirectory(at: bodyURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try response.body.write(to: bodyURL, options: .atomic)
            try encoder.encode(Sidecar(statusCode: response.statusCode, headers: headers, delay: nil))
                .write(to: sidecarURL, options: .atomic)
        } catch {
            throw .invalidRequest(.init(request: request.redactedDescription,
                                        reason: "the mock could not be recorded at \(bodyURL.path): \(error.localizedDescription)",
                                        underlyingError: error))
        }
    }
}
