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
        /// `defaultLog`: `NetworkManager().isVerbose` and `Net.isVerbose` as the probe started,
        /// and how many log texts the request wrote with the default left alone.
        let isVerbose: Bool?
        let sharedIsVerbose: Bool?
        let logTexts: Int?

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
        /// A GET into `Data` with a manager whose `isVerbose` is left at its default, the log's
        /// texts counted; the report says the defaults.
        case defaultLog(String)
        /// `count` GETs at once to Tests/Servers/silent_server.py, all cancelled once it holds
        /// them; the body says the resident sizes and the cancellations (``CancelStorm``).
        case cancelStorm(String, count: Int)

        func arguments(port: Int) -> [String] {
            switch self {
            case .get(let endpoint, let none): ["get", String(port), endpoint] + (none ? ["none"] : [])
            case .limited(let endpoint, let limit): ["limited", String(port), endpoint, String(limit)]
            case .download(let endpoint, let destination): ["download", String(port), endpoint, destination.path]
            case .multipart(let endpoint, let file): ["multipart", String(port), endpoint, file.path]
            case .streamUpload(let endpoint, let bytes, let chunkSize): ["stream-upload", String(port), endpoint, String(bytes), String(chunkSize)]
            case .defaultLog(let endpoint): ["default-log", String(port), endpoint]
            case .cancelStorm(let endpoint, let count): ["cancel-storm", String(port), endpoint, String(count)]
            }
        }
    }

    /// The probe: its request's timeout is 120 s, so one still running after 180 s hangs beyond it.
    static let probe = ProbeProcess(name: "RequestProbe", deadline: .seconds(180))

    /// The proxy variables curl reads, in both cases: a probe starts without them (whatever the
    /// test process was started with) and gets only those a test gives it.
    static let proxyVariables = ["http_proxy", "https_proxy", "all_proxy", "no_proxy"].flatMap { [$0, $0.uppercased()] }

    /// Sends `request` to 127.0.0.1:`port` from a new process whose environment is the test
    /// process's without any proxy variable, plus `environment`. Throws if the probe crashes,
    /// exits with a failure, or does not finish within the probe's deadline. `probe` is another
    /// build of it (``releaseBuild()``).
    static func send(_ request: Request, port: Int, environment: [String: String] = [:], probe: ProbeProcess = probe) async throws -> Report {
        var variables = ProcessInfo.processInfo.environment
        for name in proxyVariables { variables[name] = nil }
        variables.merge(environment) { $1 }
        return try await probe.run(request.arguments(port: port), environment: variables)
    }

    /// Builds the probe in the release configuration, once per test process, into
    /// `.build-release-probe/` at the repository root (its own scratch path: the test run holds
    /// `.build`'s lock), and returns it.
    ///
    /// The release configuration without optimization (`-c release -Xswiftc -Onone`): what the
    /// configuration decides for the library, `#if DEBUG` being false, is the same, and the library
    /// builds in about 15 s instead of 35 on two cores. Later runs rebuild only what changed.
    static func releaseBuild() async throws -> ProbeProcess {
        try await releaseProbe.value
    }

    private static let releaseProbe = Task { () throws -> ProbeProcess in
        let scratch = repositoryRoot.appendingPathComponent(".build-release-probe")
        let swift = ProcessInfo.processInfo.environment["SWIFT"] ?? "swift"
        let common = ["--package-path", repositoryRoot.path, "--scratch-path", scratch.path, "-c", "release", "-Xswiftc", "-Onone"]
        let build = try await Toolchain.run([swift, "build", "--product", "RequestProbe"] + common)
        guard build.status == 0 else { throw ProbeProcess.Failure(description: "the release build of RequestProbe failed: \(build)") }
        let binPath = try await Toolchain.run([swift, "build", "--show-bin-path"] + common)
        guard binPath.status == 0, let directory = binPath.output.split(separator: "\n").last else {
            throw ProbeProcess.Failure(description: "no bin path for the release build: \(binPath)")
        }
        return ProbeProcess(name: "RequestProbe", deadline: probe.deadline, directory: URL(fileURLWithPath: String(directory)))
    }
}
