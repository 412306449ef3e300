import Foundation
import NetworkLayer

// One request in a process of its own, for the checks that a parallel test run would disturb,
// or that would disturb it, inside the test process:
// - its environment is set when it is spawned ("Proxies from the environment": http_proxy and
//   no_proxy, without a setenv in the test process, where it would send every other test's
//   transfers through the proxy and race libcurl's getenv on the engine thread);
// - its peak resident size grows only by what its request costs (the memory-bound downloads,
//   uploads and decompression limit: other tests' allocations would inflate an in-process peak).
//
// `RequestProbe <mode> <port> <endpoint> [arguments]` sends one request to 127.0.0.1:`port`:
//   get <port> <endpoint> [none]              GET into Data; the manager's proxy is its default
//                                             (.environment), or .none
//   limited <port> <endpoint> <bytes>         GET into Data with maximumResponseSize = bytes
//   download <port> <endpoint> <destination>  GET downloaded to destination
//   multipart <port> <endpoint> <file>        POST multipart/form-data: name=big, blob=the file
//   stream-upload <port> <endpoint> <bytes> <chunk size>
//                                             POST .stream of bytes generated lazily (byte i is
//                                             i % 256), length not given
//   resumable-download <port> <endpoint> <destination> <resume data file>
//                                             GET downloaded to destination, continued from the
//                                             JSON ResumeData in the file when it exists; a failure's
//                                             resume data is written there (the other process's start)
//   cancel-storm <port> <endpoint> <count>    `count` GETs at once to a server that never answers
//                                             (Tests/Servers/silent_server.py, which says how many it
//                                             holds), all cancelled once it holds them; the body is
//                                             JSON: resident sizes before, at the peak and 2.5 s
//                                             after, and the cancellations
//   default-log <port> <endpoint>             GET into Data with a manager whose isVerbose is left
//                                             at its default (the log's text collected, not printed);
//                                             reports the default of NetworkManager() and of Net,
//                                             and how many log texts the request wrote: built in
//                                             release, it proves the release default
// and prints one line of JSON: `{"outcome": "success" or the NetworkError's case, "body": the
// response body as text, "size": the downloaded file's size, "reason": the error's reason,
// "growth": the peak resident size's growth during the request, in bytes}`. The growth is the
// kernel's high-water mark (VmHWM, reset through /proc/self/clear_refs just before the request)
// over the resident size then: exact, not sampled.

struct LoopbackProvider: ServiceProvider {
    let port: Int?
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }
}

final class ProbeRequest<Response: Decodable & Sendable>: BaseRequest<Response> {
    init(port: Int, endpoint: String, method: HTTPMethod = .get, body: RequestBody? = nil, destination: URL? = nil) {
        super.init(serviceProvider: LoopbackProvider(port: port), endpoint: endpoint)
        httpMethod = method
        self.body = body
        downloadDestination = destination
        requestTimeout = .seconds(120)  // a hang ends as .timeOut, which the tests refuse
    }
}

/// `total` bytes where byte i is `i % 256`, in chunks of `chunkSize`, made only when asked for.
struct PatternChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let total: Int
    let chunkSize: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        let total: Int
        let chunkSize: Int
        var position = 0
        /// The pattern, long enough to cut any chunk from.
        let block: Data

        mutating func next() async -> Data? {
            guard position < total else { return nil }
            let count = Swift.min(chunkSize, total - position)
            let offset = position % 256
            position += count
            return block.subdata(in: offset..<(offset + count))
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(total: total, chunkSize: chunkSize, block: Data((0..<(chunkSize + 256)).map { UInt8(truncatingIfNeeded: $0) }))
    }
}

struct Report: Encodable {
    var outcome = "success"
    var body: String?
    var size: Int64?
    var reason: String?
    var growth = 0
    /// `default-log`: `NetworkManager().isVerbose` and `Net.isVerbose` as they start, and the log texts written.
    var isVerbose: Bool?
    var sharedIsVerbose: Bool?
    var logTexts: Int?
    /// `resumable-download`: whether it continued from resume data, and whether it left some.
    var resumed: Bool?
    var wroteResumeData: Bool?
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("RequestProbe: \(message)\n".utf8))
    exit(2)
}

/// A line of /proc/self/status, in bytes.
func status(_ name: String) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
          let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
    return kilobytes * 1024
}

/// Runs `request`, and reports its outcome (with `fill` for its value) and the growth of the
/// peak resident size while it ran.
func measure<Value>(_ request: () async throws(NetworkError) -> Value, fill: (inout Report, Value) -> Void) async -> Report {
    // Writing 5 to clear_refs resets VmHWM to the current resident size (Linux 4.0 and later).
    // Without it the peak would be the process's whole life: refuse rather than guess.
    guard (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil else {
        fail("cannot reset VmHWM through /proc/self/clear_refs")
    }
    guard let baseline = status("VmRSS") else { fail("no VmRSS in /proc/self/status") }
    var report = Report()
    do {
        let value = try await request()
        report.growth = peakGrowth(over: baseline)
        fill(&report, value)
    } catch {
        report.growth = peakGrowth(over: baseline)
        report.outcome = Mirror(reflecting: error).children.first?.label ?? String(describing: error)
        report.reason = error.context?.reason
    }
    return report
}

func peakGrowth(over baseline: Int) -> Int {
    guard let peak = status("VmHWM") else { fail("no VmHWM in /proc/self/status") }
    return peak - baseline
}

/// How many requests the silent server holds: what it answers to `COUNT`.
func acceptedConnections(port: Int) -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return 0 }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0, send(fd, "COUNT\n", 6, 0) == 6 else { return 0 }
    var buffer = [UInt8](repeating: 0, count: 32)
    let read = recv(fd, &buffer, buffer.count, 0)
    return read > 0 ? Int(String(decoding: buffer[..<read], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 : 0
}

/// `count` requests held by a server that never answers, all cancelled at once; then what memory
/// the process gives back once the engine is quiet.
func cancelStorm(port: Int, endpoint: String, count: Int) async -> Report {
    struct Storm: Encodable {
        var baselineMB = 0.0, peakMB = 0.0, afterMB = 0.0, accepted = 0, cancelled = 0, other = 0, maxCancelMilliseconds = 0.0
    }
    guard (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil,
          let baseline = status("VmRSS") else { fail("cannot read or reset the resident size") }
    var storm = Storm(baselineMB: Double(baseline) / 1e6)
    var tasks = (0..<count).map { _ in
        Task { () -> NetworkError? in
            do throws(NetworkError) {
                _ = try await net.perform(ProbeRequest<Data>(port: port, endpoint: endpoint))
                return nil
            } catch {
                return error
            }
        }
    }
    let deadline = ContinuousClock.now + .seconds(60)
    while storm.accepted < count, ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(100))
        storm.accepted = acceptedConnections(port: port)
    }
    let cancelledAt = ContinuousClock.now
    for task in tasks { task.cancel() }
    for task in tasks {
        let error = await task.value
        if case .cancelled? = error { storm.cancelled += 1 } else { storm.other += 1 }
    }
    let elapsed = ContinuousClock.now - cancelledAt
    tasks = []  // a finished task's memory goes with the last reference to it
    storm.maxCancelMilliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    storm.peakMB = Double(status("VmHWM") ?? 0) / 1e6
    try? await Task.sleep(for: .milliseconds(2500))  // the engine gives memory back once quiet for a second
    storm.afterMB = Double(status("VmRSS") ?? 0) / 1e6
    var report = Report()
    report.outcome = storm.cancelled == count ? "success" : "notCancelled"
    report.growth = (status("VmRSS") ?? 0) - baseline
    report.body = (try? JSONEncoder().encode(storm)).map { String(decoding: $0, as: UTF8.self) }
    return report
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, let port = Int(arguments[2]) else {
    fail("usage: RequestProbe get|limited|download|multipart|stream-upload <port> <endpoint> [arguments]")
}
let endpoint = arguments[3]
let extra = Array(arguments.dropFirst(4))
// Read before anything changes them.
let defaultIsVerbose = NetworkManager().isVerbose
let sharedIsVerbose = Net.isVerbose
let net = NetworkManager()
net.isVerbose = false
let report: Report
switch (arguments[1], extra.count) {
case ("get", 0), ("get", 1):
    if extra.first == "none" { net.proxy = .none } else if let other = extra.first { fail("unknown proxy \(other)") }
    report = await measure({ () throws(NetworkError) in try await net.perform(ProbeRequest<Data>(port: port, endpoint: endpoint)) },
                           fill: { $0.body = String(decoding: $1, as: UTF8.self) })
case ("limited", 1):
    guard let limit = Int(extra[0]) else { fail("not a size: \(extra[0])") }
    net.maximumResponseSize = limit
    report = await measure({ () throws(NetworkError) in try await net.perform(ProbeRequest<Data>(port: port, endpoint: endpoint)) },
                           fill: { $0.size = Int64($1.count) })
case ("download", 1):
    let request = ProbeRequest<DownloadedFile>(port: port, endpoint: endpoint, destination: URL(fileURLWithPath: extra[0]))
    report = await measure({ () throws(NetworkError) in try await net.perform(request) }, fill: { $0.size = $1.size })
case ("multipart", 1):
    let form = MultipartFormData().text("name", "big").file("blob", at: URL(fileURLWithPath: extra[0]))
    let request = ProbeRequest<Data>(port: port, endpoint: endpoint, method: .post, body: .multipart(form))
    report = await measure({ () throws(NetworkError) in try await net.perform(request) },
                           fill: { $0.body = String(decoding: $1, as: UTF8.self) })
case ("stream-upload", 2):
    guard let total = Int(extra[0]), let chunkSize = Int(extra[1]), total >= 0, chunkSize > 0 else { fail("bad sizes \(extra)") }
    let body = RequestBody.stream(PatternChunks(total: total, chunkSize: chunkSize), length: nil)
    let request = ProbeRequest<Data>(port: port, endpoint: endpoint, method: .post, body: body)
    report = await measure({ () throws(NetworkError) in try await net.perform(request) },
                           fill: { $0.body = String(decoding: $1, as: UTF8.self) })
case ("resumable-download", 2):
    let request = ProbeRequest<DownloadedFile>(port: port, endpoint: endpoint, destination: URL(fileURLWithPath: extra[0]))
    let file = URL(fileURLWithPath: extra[1])
    let saved = FileManager.default.contents(atPath: file.path).flatMap { try? JSONDecoder().decode(ResumeData.self, from: $0) }
    var resumed = Report()
    do {
        resumed.size = try await net.perform(request, resumingFrom: saved).size
    } catch {
        resumed.outcome = Mirror(reflecting: error).children.first?.label ?? String(describing: error)
        resumed.reason = error.context?.reason
        if let resumeData = error.resumeData, let encoded = try? JSONEncoder().encode(resumeData) {
            resumed.wroteResumeData = FileManager.default.createFile(atPath: file.path, contents: encoded)
        }
    }
    resumed.resumed = saved != nil
    report = resumed
case ("cancel-storm", 1):
    guard let count = Int(extra[0]), count > 0 else { fail("bad count \(extra)") }
    report = await cancelStorm(port: port, endpoint: endpoint, count: count)
case ("default-log", 0):
    let quiet = NetworkManager()  // isVerbose as it starts
    let texts = Protected(0)
    quiet.logHandler = { _ in texts.withLock { $0 += 1 } }
    var logged = await measure({ () throws(NetworkError) in try await quiet.perform(ProbeRequest<Data>(port: port, endpoint: endpoint)) },
                               fill: { $0.body = String(decoding: $1, as: UTF8.self) })
    logged.isVerbose = defaultIsVerbose
    logged.sharedIsVerbose = sharedIsVerbose
    logged.logTexts = texts.withLock { $0 }
    report = logged
default:
    fail("unknown mode or wrong arguments: \(arguments.dropFirst())")
}
guard let line = try? JSONEncoder().encode(report) else { fail("cannot encode the report") }
print(String(decoding: line, as: UTF8.self))
