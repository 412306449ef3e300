import Foundation

/// The mock files of one directory: which file answers a request, reading it, and recording one.
///
/// Layout, for a request whose `mockedResponseFilename` is `ITunesSearchMockedResponse`:
///
///     MockResponses/ITunesSearchMockedResponse.json        the body
///     MockResponses/ITunesSearchMockedResponse.meta.json   optional: {"statusCode": 404, "headers": {...}, "delay": 0.5}
///
/// A request without a `mockedResponseFilename` is answered by `<METHOD>/<endpoint path>.json`,
/// e.g. `MockResponses/GET/search.json` for `GET /search`.
struct MockStore: Sendable {
    let directory: URL

    /// What a sidecar may say about a mocked response. Every field is optional.
    struct Sidecar: Codable, Sendable {
        var statusCode: Int?
        var headers: [String: String]?
        /// Seconds to wait before answering.
        var delay: Double?
    }

    /// The body file answering `request`, checked to lie inside the mock directory.
    func bodyFile(for request: PreparedRequest) throws(NetworkError) -> URL {
        try file(named: mockName(for: request), extension: "json")
    }

    /// The sidecar beside the body file, checked the same way (it may be a link of its own).
    func sidecarFile(for request: PreparedRequest) throws(NetworkError) -> URL {
        try file(named: mockName(for: request), extension: "meta.json")
    }

    /// `mockedResponseFilename`, or `METHOD/path` without one.
    private func mockName(for request: PreparedRequest) -> String {
        let name: String
        if let filename = request.snapshot.mockedResponseFilename {
            name = filename
        } else {
            // `/users/42?x=1` → `GET/users/42`; percent-escapes decoded first so that an encoded
            // `..` is seen, and refused, as what it is.
            let path = request.url.path(percentEncoded: false)
            let trimmed = path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
            name = "\(request.method.rawValue)/\(trimmed.isEmpty ? "index" : trimmed)"
        }
        return name
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

    /// The mocked response for `request`: its body file, and its sidecar when there is one.
    func response(for request: PreparedRequest) throws(NetworkError) -> (response: HTTPResponse, delay: Double) {
        let bodyURL = try bodyFile(for: request)
        let body: Data
        do {
            body = try Self.readWithoutFollowingLinks(bodyURL)
        } catch {
            throw .mockNotFound(filename: bodyURL.path)
        }
        let sidecarURL = try sidecarFile(for: request)
        var sidecar = Sidecar()
        if let data = try? Self.readWithoutFollowingLinks(sidecarURL) {
            do {
                sidecar = try JSONDecoder().decode(Sidecar.self, from: data)
            } catch {
                throw .invalidRequest(.init(request: request.redactedDescription,
                                            reason: "the mock sidecar \(sidecarURL.path) is not valid: \(HTTPResponse.describe(error))",
                                            underlyingError: error))
            }
        }
        let status = sidecar.statusCode ?? 200
        guard (100...599).contains(status) else {
            throw .invalidRequest(.init(request: request.redactedDescription,
                                        reason: "the mock sidecar \(sidecarURL.path) gives the status \(status), outside 100...599"))
        }
        let headers = sidecar.headers ?? ["Content-Type": "application/json"]
        let response = HTTPResponse(statusCode: status, headers: ResponseHeaders(headers), body: body, url: request.url,
                                    isMocked: true, origin: request.origin,
                                    expectations: request.snapshot.expectations)
        return (response, max(0, sidecar.delay ?? 0))
    }

    /// Writes `response` as the mock answering `request`: the body file and a sidecar with the
    /// status and headers, secret headers left out.
    func record(_ response: HTTPResponse, for request: PreparedRequest) throws(NetworkError) {
        let bodyURL = try bodyFile(for: request)
        let sidecarURL = try sidecarFile(for: request)
        let headers = response.headers.filter { !request.redactor.isSecretHeader($0.key) }
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
