import Foundation

/// The `RequestProbe` executable (Tests/RequestProbe), built beside this test binary: one request
/// in a process of its own, so that a check holds while other tests run in parallel. Its
/// environment is set when it is spawned (the test process's own is never changed: a `setenv`
/// there would send every other test's transfers through a proxy, and race libcurl's `getenv`),
/// and its peak resident size grows only by what the request costs (other tests' allocations
/// would inflate a peak measured in the test process).
enum RequestProbe {
    /// What the probe reports.
    struct Report: Decodable, Sendable, CustomStringConvertible {
        /// `success`, or the `NetworkError`'s case (`reachability`, `transport`, …).
        let outcome: String
        /// The response body as text (`get`, `multipart`, `streamUpload`).
        let body: String?
        /// The downloaded file's size (`download`), or the body's (`limited`).
        let size: Int64?
        /// The error's reason.
        let reason: String?
        /// How much the probe's peak resident size grew during the request, in bytes.
        let growth: Int

        var description: String { "\(outcome): \(reason ?? body ?? size.map { "\($0) bytes" } ?? ""), grew by \(growth) bytes" }

        /// The body decoded as `T`.
        func decoded<T: Decodable>(_ type: T.Type) throws -> T {
            try JSONDecoder().decode(type, from: Data((body ?? "").utf8))
        }
    }

    /// The request a probe sends to 127.0.0.1.
    enum Request: Sendable {
        /// A GET into `Data`; the manager's proxy is its default (`.environment`), or `.none`.
        case get(String, proxyNone: Bool = false)
        /// A GET into `Data` with `maximumResponseSize`.
        case limited(String, maximumResponseSize: Int)
        /// A GET downloaded to `destination`.
        case download(String, to: URL)
        /// A POST of multipart/form-data: `name=big`, `blob=` the file.
        case multipart(String, file: URL)
        /// A POST of `.stream(_, length: nil)`: `bytes` bytes generated lazily (byte i is
        /// `i % 256`) in chunks of `chunkSize`.
        case streamUpload(String, bytes: Int, chunkSize: Int)

        func arguments(port: Int) -> [String] {
            switch self {
            case .get(let endpoint, let none): ["get", String(port), endpoint] + (none ? ["none"] : [])
            case .limited(let endpoint, let limit): ["limited", String(port), endpoint, String(limit)]
            case .download(let endpoint, let destination): ["download", String(port), endpoint, destination.path]
            case .multipart(let endpoint, let file): ["multipart", String(port), endpoint, file.path]
            case .streamUpload(let endpoint, let bytes, let chunkSize): ["stream-upload", String(port), endpoint, String(bytes), String(chunkSize)]
            }
        }
    }

    struct ProbeFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The longest a probe may take: its request's timeout is 120 s, so a probe still running
    /// after this hangs beyond it, and is killed.
    static let deadline: DispatchTimeInterval = .seconds(180)

    /// The proxy variables curl reads, in both cases: a probe starts without them (whatever the
    /// test process was started with) and gets only those a test gives it.
    static let proxyVariables = ["http_proxy", "https_proxy", "all_proxy", "no_proxy"].flatMap { [$0, $0.uppercased()] }

    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("RequestProbe")
    }

    /// Sends `request` to 127.0.0.1:`port` from a new process whose environment is the test
    /// process's without any proxy variable, plus `environment`. Throws if the probe crashes,
    /// exits with a failure, or does not finish within ``deadline``.
    static func send(_ request: Request, port: Int, environment: [String: String] = [:]) async throws -> Report {
        var variables = ProcessInfo.processInfo.environment
        for name in proxyVariables { variables[name] = nil }
        variables.merge(environment) { $1 }
        let arguments = request.arguments(port: port)
        return try await offCooperativePool { [variables] in try run(arguments, environment: variables) }
    }

    private static func run(_ arguments: [String], environment: [String: String]) throws -> Report {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let watchdog = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline, execute: watchdog)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        let text = String(decoding: data + message, as: UTF8.self)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw ProbeFailure(description: "RequestProbe \(arguments) ended by \(process.terminationReason == .exit ? "exit" : "signal") "
                                   + "\(process.terminationStatus) (killed after \(deadline) if it hung): \(text)")
        }
        guard let report = try? JSONDecoder().decode(Report.self, from: data) else {
            throw ProbeFailure(description: "RequestProbe \(arguments) printed no report: \(text)")
        }
        return report
    }
}
