import Foundation

/// What the tests need beyond the toolchain (tinyproxy, and the `.venv` with httpbin, hypercorn,
/// mitmproxy and trustme), installed the first time a test asks for it, by the script `make deps`
/// runs: so plain `swift test` works on a fresh clone as `make test` does. When everything is
/// there the script only checks (a tenth of a second); as a user other than root it cannot install
/// system packages, prints the command to run, and the test that needed them says so.
enum TestDependencies {
    /// Runs `scripts/deps.sh` once per test process; its output when it failed.
    private static let installed: Result<Void, TestServerError> = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repositoryRoot.appendingPathComponent("scripts/deps.sh").path]
        process.currentDirectoryURL = repositoryRoot
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            return .failure(TestServerError(description: "scripts/deps.sh could not start: \(error)"))
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(TestServerError(description: "scripts/deps.sh failed (run `make deps`): \(text.suffix(600))"))
        }
        return .success(())
    }()

    /// Installs what is missing, once; throws what `scripts/deps.sh` said when it could not.
    /// Blocks while it installs: call it off the cooperative pool where that matters.
    static func install() throws {
        try installed.get()
    }

    /// `path`, once the dependencies are installed (or their installation failed: the caller's
    /// own check of the file then says what is missing).
    static func installed(_ path: URL) -> URL {
        _ = installed
        return path
    }
}
