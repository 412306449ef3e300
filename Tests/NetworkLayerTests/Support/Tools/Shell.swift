import Foundation

/// Runs `command` with `/bin/sh -c` on a Dispatch thread and returns its exit status and
/// standard output (standard error passes through).
func runShell(_ command: String) async throws -> (status: Int32, output: Data) {
    try await offCooperativePool { () throws -> (Int32, Data) in
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }
}

/// A copy-as-curl command with `options` inserted right after `curl`, so they hold even when the
/// command ends with a `# comment`.
func curlCommand(_ command: String, inserting options: String) -> String {
    guard command.hasPrefix("curl ") else { return command }
    return "curl " + options + " " + command.dropFirst("curl ".count)
}
