import Foundation
import Synchronization
import Testing
@testable import NetworkLayer

// Helpers for the suites that share one test server. They only read `Net`'s settings,
// never change them: these suites run in parallel with everything else.

// MARK: - Server answers

/// What `/status/<code>` answers with by default.
struct StatusBody: Decodable, Sendable {
    let status: Int
}

/// What `/count` answers with.
struct RequestCount: Decodable, Sendable {
    let count: Int
}

/// What `/delay/<seconds>` answers with.
struct DelayBody: Decodable, Sendable {
    let delayed: Double
}

extension TestServer {
    private static let sharedServer = Result { () throws -> TestServer in try TestServer.start() }

    /// One plain-HTTP server for the whole test process, started by the first test that asks.
    ///
    /// Each server costs a Python start-up (about 0.15 s of CPU); hundreds of parameterized
    /// cases each starting their own would make the run CPU-bound and the timing tests flaky.
    /// A test that counts or records the requests a server receives starts its own with
    /// ``withTestServer(_:record:tls:_:)`` instead. This one is never stopped: it exits when the
    /// test process does, as its stdin closes.
    static func shared() async throws -> TestServer {
        try await offCooperativePool { try sharedServer.get() }
    }

    /// How many requests reached the server so far (`/count` itself not included).
    /// A test that expects a request to be refused before any connection checks this is 0.
    func receivedRequestCount() async throws -> Int {
        try await Net.perform(TestRequest<RequestCount>(provider(), "/count")).count
    }

    /// A provider for this server whose `parseAndValidate` can hand back the raw ``HTTPResponse``.
    func rawProvider(headers: [String: String] = [:]) -> RawResponseProvider {
        RawResponseProvider(port: port, headers: headers)
    }
}

/// Runs blocking `work` on a Dispatch thread and waits for it without blocking the caller's thread.
func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

/// Runs blocking `work` on a Dispatch thread and waits for it without blocking the caller's thread.
func offCooperativePool(_ work: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            work()
            continuation.resume()
        }
    }
}

// MARK: - The raw response

/// The whole ``HTTPResponse``, returned as is by ``RawResponseProvider``: for a response without
/// a JSON body (HEAD, 204) and to look at what the default validation hides (the final URL).
struct RawResponse: Decodable, Sendable {
    let statusCode: Int
    let headers: [String: String]
    let body: Data
    let url: URL
    let contentType: String?

    init(_ response: HTTPResponse) {
        statusCode = response.statusCode
        headers = response.headers
        body = response.body
        url = response.url
        contentType = response.value(forHeader: "content-type")
    }

    /// Never decoded from JSON: only ``RawResponseProvider`` builds one.
    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "RawResponse is not decodable"))
    }
}

/// A loopback provider that overrides `parseAndValidate`: asked for a ``RawResponse`` it returns
/// the response whatever its status; asked for anything else it runs the default steps, which a
/// custom provider reuses through `validateStatus()` and `decode(_:)`.
struct RawResponseProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme = HTTPScheme.http
    var port: Int?
    var headers: [String: String] = [:]

    func createHTTPHeaders() -> [String: String] { headers }

    func parseAndValidate<Response: Decodable>(_ response: HTTPResponse, as type: Response.Type) throws -> Response {
        if let raw = RawResponse(response) as? Response { return raw }
        try response.validateStatus()
        return try response.decode(type)
    }
}

// MARK: - Errors

extension NetworkError {
    /// The case's name, for `#expect(error?.caseName == "reachability")`: a failed expectation
    /// then prints which case came instead. Spelled with the `if case .name = error` patterns users write.
    var caseName: String {
        if case .generic = self { return "generic" }
        if case .reachability = self { return "reachability" }
        if case .timeOut = self { return "timeOut" }
        if case .invalidCertificate = self { return "invalidCertificate" }
        if case .serialization = self { return "serialization" }
        if case .notFound = self { return "notFound" }
        if case .unauthorizedAccess = self { return "unauthorizedAccess" }
        if case .customUser = self { return "customUser" }
        if case .cancelled = self { return "cancelled" }
        if case .mockNotFound = self { return "mockNotFound" }
        if case .invalidRequest = self { return "invalidRequest" }
        if case .transport = self { return "transport" }
        if case .apiError = self { return "apiError" }
        if case .validation = self { return "validation" }
        return String(String(describing: self).prefix { $0 != "(" })  // a case added since
    }

    /// libcurl's code, when the underlying error is a ``CurlError``.
    var curlCode: Int? { (underlyingError as? CurlError)?.code }
}

// MARK: - Timing

/// Runs `body` and returns its result with how long it took.
func measure<T>(_ body: () async throws -> T) async rethrows -> (value: T, elapsed: Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let value = try await body()
    return (value, start.duration(to: clock.now))
}

/// A task executor with a Dispatch queue of its own, for the tests that measure latency.
///
/// A task that prefers it (`Task(executorPreference:)`) runs, and resumes after each `await`,
/// on this queue rather than on the cooperative pool. The pool has one thread per core and
/// parallel tests keep it busy (JSON-encoding 5 MB bodies, decoding hundreds of answers), so a
/// task resumed there can wait hundreds of milliseconds for a thread: the measurement would be
/// of the other tests, not of the library.
final class DedicatedExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "NetworkLayerTests.DedicatedExecutor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// The duration libcurl itself reports in a timeout message ("Operation timed out after 1001
/// milliseconds with 0 bytes received"), which no scheduling delay on the Swift side can inflate.
func curlReportedTimeout(_ error: NetworkError?) -> Duration? {
    guard let message = (error?.underlyingError as? CurlError)?.message,
          let range = message.range(of: #"after \d+ milliseconds"#, options: .regularExpression) else { return nil }
    let digits = message[range].dropFirst("after ".count).prefix { $0.isNumber }
    return Int(digits).map { .milliseconds($0) }
}

// MARK: - Completion handlers

/// Records every call of a completion handler, from any thread.
final class CallRecorder<Value: Sendable>: Sendable {
    private let calls = Protected<[Value]>([])

    func record(_ value: Value) {
        calls.withLock { $0.append(value) }
    }

    var values: [Value] { calls.withLock { $0 } }

    /// Waits until at least one call arrived (or `limit` passed), then `settle` more, so that a
    /// second, wrong call has time to show up too. Returns every call seen.
    func waitForCalls(limit: Duration = .seconds(5), settle: Duration = .milliseconds(300)) async -> [Value] {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        while values.isEmpty, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        try? await Task.sleep(for: settle)
        return values
    }

    /// Waits for the first call (at most `limit`) and returns when this loop saw it, or `nil`.
    func waitForFirstCall(limit: Duration = .seconds(5)) async -> ContinuousClock.Instant? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        while clock.now < deadline {
            if !values.isEmpty { return clock.now }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }
}

// MARK: - A server that resets connections mid-upload

/// A raw TCP server on 127.0.0.1 (Python, not HTTP): it reads the first 64 KiB a client sends,
/// then resets the connection while the client is still sending. With `tls`, it first completes
/// a TLS handshake as `localhost` (Certificates/localhost-chain.pem, trusted through
/// TestCABundle.pem) and counts decrypted bytes. It exits when its stdin closes.
final class ResettingServer: Sendable {
    private let server: ServerProcess
    var port: Int { server.port }

    private static let script = """
        import os, socket, ssl, struct, sys, threading
        def watch_stdin():
            while os.read(0, 65536):
                pass
            os._exit(0)
        threading.Thread(target=watch_stdin, daemon=True).start()
        context = None
        if len(sys.argv) > 2:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        print("PORT", server.getsockname()[1], flush=True)
        while True:
            connection, _ = server.accept()
            try:
                if context:
                    connection = context.wrap_socket(connection, server_side=True)
                received = 0
                while received < 65536:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    received += len(chunk)
            except (OSError, ssl.SSLError):
                pass
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            connection.close()
        """

    init(tls: Bool = false) throws {
        let tlsArguments = tls ? [certificatesDirectory.appendingPathComponent("localhost-chain.pem").path,
                                  certificatesDirectory.appendingPathComponent("localhost.key").path] : []
        server = try ServerProcess(python: ["-c", Self.script] + tlsArguments, name: "the resetting server")
    }

    func stop() { server.stop() }
}
