import Foundation
@testable import NetworkLayer

/// The directory of the certificates `Tests/Servers/pinning_fixtures.sh` writes (an expiring leaf,
/// a rotated leaf, a 50-certificate chain, leaves with malformed or unknown critical extensions,
/// and their `pins.txt`; the script's header lists them), generated once per test process.
///
/// The first read runs the script (about two seconds, blocking the caller: from a test, await
/// ``generatedPinningFixtures()`` instead, which waits off the cooperative pool). If the script
/// failed, the directory lacks the files, and ``generatedPinningFixtures()`` throws what it printed.
let pinningFixtures: URL = generation.directory

/// The directory of the generated certificates, once the script has run; throws what it printed
/// when it failed. Blocks the first time: in an async context the async overload is chosen.
func generatedPinningFixtures() throws -> URL {
    if let failure = generation.failure { throw failure }
    return generation.directory
}

/// The directory of the generated certificates, waiting for the script off the cooperative pool
/// (on a two-core machine, two tests blocked on it there would stall every other test).
func generatedPinningFixtures() async throws -> URL {
    try await offCooperativePool { try generatedPinningFixtures() }
}

/// The pin of a file the script generated, as it wrote it to its `pins.txt`. Blocks the first
/// time: in an async context the async overload is chosen.
func generatedPin(of file: String) throws -> String {
    try pin(of: file, in: try generatedPinningFixtures())
}

/// The pin of a file the script generated, waiting for the script off the cooperative pool.
func generatedPin(of file: String) async throws -> String {
    try pin(of: file, in: try await generatedPinningFixtures())
}

/// A TLS server presenting `chain`, a file the script generated, with its `key`, recording what it
/// receives.
func withGeneratedTLSServer<T>(_ chain: String, key: String, extra: [String] = [],
                               _ body: (TestServer) async throws -> T) async throws -> T {
    let directory = try await generatedPinningFixtures()
    return try await withTestServer(["--tls-cert", directory.appendingPathComponent(chain).path,
                                     "--tls-key", directory.appendingPathComponent(key).path] + extra,
                                    record: true, tls: true, body)
}

/// The script's one run in this process: a global's initializer runs once, whichever thread reads
/// it first, and the others wait for it.
private let generation: (directory: URL, failure: TestServerError?) = {
    let parent = FileManager.default.temporaryDirectory
    removeDirectoriesOfEndedProcesses(in: parent)
    let directory = parent.appendingPathComponent("\(directoryPrefix)\(getpid())", isDirectory: true)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [testsDirectory.appendingPathComponent("Servers/pinning_fixtures.sh").path, directory.path]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    do {
        try process.run()
    } catch {
        return (directory, TestServerError(description: "pinning_fixtures.sh could not start: \(error)"))
    }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        return (directory, TestServerError(description: "pinning_fixtures.sh failed: \(text.suffix(600))"))
    }
    return (directory, nil)
}()

/// What the generated directories are called, followed by the process id of the test process.
private let directoryPrefix = "networklayer-pinning-"

/// Removes the directories earlier test processes generated, once those processes have ended, so
/// that runs do not pile them up (a running process's directory, another engineer's included, stays).
private func removeDirectoriesOfEndedProcesses(in parent: URL) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
    for name in names where name.hasPrefix(directoryPrefix) {
        guard let pid = pid_t(name.dropFirst(directoryPrefix.count)), pid != getpid(),
              kill(pid, 0) != 0, errno == ESRCH else { continue }
        try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
    }
}
