import Foundation

// Files and directories the tests create and check.

/// A fresh empty directory under the system's temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("nl-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Checks a file's SHA-256 with `sha256sum`, independently of the code under test, on a
/// Dispatch thread (hashing hundreds of MB must not hold a cooperative thread).
func sha256(of file: URL) async throws -> String {
    try await offCooperativePool { try sha256Blocking(of: file) }
}

private func sha256Blocking(of file: URL) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sha256sum", file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
}

/// A file of `size` bytes of a repeating pattern, written in 1 MB pieces on a Dispatch thread.
func makeFile(size: Int, in directory: URL, name: String = "upload.bin") async throws -> URL {
    try await offCooperativePool { try makeFileBlocking(size: size, in: directory, name: name) }
}

private func makeFileBlocking(size: Int, in directory: URL, name: String) throws -> URL {
    let url = directory.appendingPathComponent(name)
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
        throw TestServerError(description: "could not create \(url.path)")
    }
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    let piece = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) })
    var written = 0
    while written < size {
        let count = min(piece.count, size - written)
        try handle.write(contentsOf: piece.prefix(count))
        written += count
    }
    return url
}

/// The files in a directory, ignoring none (temporary downloads start with a dot).
func filesIn(_ directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
}
