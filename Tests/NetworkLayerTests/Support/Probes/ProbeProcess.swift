import Foundation

/// One of the probe executables built beside this test binary (Tests/RequestProbe,
/// Tests/DiskWriteProbe, Tests/StreamMemoryProbe), run in a process of its own. A probe prints one
/// line of JSON, its report, on standard output, and exits with 0.
struct ProbeProcess: Sendable {
    /// The executable's name: its target's.
    let name: String
    /// The longest the probe may run: one still running after this is killed, and fails. Longer
    /// than the timeout of the probe's request, so only a hang beyond it reaches the deadline.
    let deadline: DispatchTimeInterval
    /// Where the executable is, when it is not beside this test binary (a release build of it).
    var directory: URL?

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    var executable: URL {
        (directory ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()).appendingPathComponent(name)
    }

    /// Runs the probe with `arguments`, in `environment` (the test process's when nil), off the
    /// cooperative pool, and decodes its report. Throws if the probe crashes, exits with a
    /// failure, is killed at the deadline, or prints no report.
    func run<Report: Decodable & Sendable>(_ arguments: [String], environment: [String: String]? = nil,
                                           as: Report.Type = Report.self) async throws -> Report {
        try await offCooperativePool { try runBlocking(arguments, environment: environment) }
    }

    private func runBlocking<Report: Decodable>(_ arguments: [String], environment: [String: String]?) throws -> Report {
        // Standard error goes to a file: a probe that writes much there (a sanitizer's report)
        // must not block on a full pipe while standard output is read to its end.
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).stderr")
        guard FileManager.default.createFile(atPath: errorFile.path, contents: nil) else {
            throw Failure(description: "cannot create \(errorFile.path) for \(name)'s standard error")
        }
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let errors = try FileHandle(forWritingTo: errorFile)
        defer { try? errors.close() }

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let watchdog = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline, execute: watchdog)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        // Read through a FileHandle: Foundation's Data(contentsOf:) leaks a page per empty file.
        let message = (try? FileHandle(forReadingFrom: errorFile).readToEnd()) ?? nil
        let text = String(decoding: data + (message ?? Data()), as: UTF8.self)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw Failure(description: "\(name) \(arguments) ended by \(process.terminationReason == .exit ? "exit" : "signal") "
                              + "\(process.terminationStatus) (killed after \(deadline) if it hung): \(text)")
        }
        guard let report = try? JSONDecoder().decode(Report.self, from: data) else {
            throw Failure(description: "\(name) \(arguments) printed no report: \(text)")
        }
        return report
    }
}
