import Foundation

/// A mock directory of the test's own, in a fresh temporary directory: write mocks into it, hand
/// `url` to `makeManager(mocks:)`, and `remove()` it in a `defer`.
struct MockDirectory {
    let url: URL

    init() throws {
        url = try temporaryDirectory()
    }

    /// Writes `<name>.json` with `body` and `<name>.meta.json` with `sidecar`, each only when given.
    func write(_ name: String, body: String? = nil, sidecar: String? = nil) throws {
        let bodyURL = url.appendingPathComponent(name + ".json")
        try FileManager.default.createDirectory(at: bodyURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        if let body { try Data(body.utf8).write(to: bodyURL) }
        if let sidecar { try Data(sidecar.utf8).write(to: url.appendingPathComponent(name + ".meta.json")) }
    }

    /// Writes `<name>.<fileExtension>` (a stream's mock: `.sse`, `.ndjson`, any other) with `body`.
    func write(_ name: String, fileExtension: String, body: String) throws {
        let bodyURL = url.appendingPathComponent(name + "." + fileExtension)
        try FileManager.default.createDirectory(at: bodyURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(body.utf8).write(to: bodyURL)
    }

    /// The full path of `<name>.json`, as errors name it.
    func path(of name: String) -> String {
        url.appendingPathComponent(name + ".json").path
    }

    /// The full path of `<name>.meta.json`.
    func sidecarPath(of name: String) -> String {
        url.appendingPathComponent(name + ".meta.json").path
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
