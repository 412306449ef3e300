// bench-networklayer: NetworkLayer, called exactly the way the README tells users to call it.
//
// A `ServiceProvider` describes the server, a `BaseRequest` subclass per endpoint names the
// response type, and `Net.perform` runs it. Small GETs use the raw-body response type `Data`
// (no decoding, as the other clients don't decode either); `--decode` asks for `[Item]`, which the
// library decodes with its default `parseAndValidate`. Logging is off (`Net.isVerbose = false`), as
// in a release build. HTTP/2 needs no switch: libcurl negotiates it over TLS by itself (ALPN), so
// `--http2` is accepted and ignored.
//
// `--decode-object` (the small GETs with a Decodable) asks for `SmallObject` instead of `Data`.
//
// `--output FILE` (scenario 4 "into a file") uses the library's download API: response type
// `DownloadedFile` and `downloadDestination`, so the body streams to disk instead of memory.
//
// `--events` (scenario 6) asks for `EventStream` and counts the `ServerSentEvent`s of a
// `for try await` loop, adding up their data's UTF-8 size as a checksum; `EventStream` does not
// show the body's size, so a stream whose events and data add up counts as the fixture's bytes
// (nginx counts the request); with `--borrowed` it reads them through `forEachEvent` instead, as views,
// adding up `event.data.byteCount` (no string is made). `--stream` (scenario 7) asks for `ByteStream` and adds up each
// `Data` chunk's size without keeping it.
//
// `--cache memory|disk` (scenario 8) gives `Net` a response cache (64 MB in memory, or 64 MB in a new
// temporary directory), primes it with one request before the clock starts, and checks that every
// timed response is a hit (`response.cacheStatus == .hit`): the scenario measures what a hit costs.
// It also reads the resident size after the first 1,000 timed hits and after the last one, and
// reports the growth in its result line's note (`rss growth <n> KB`).
//
// `--observe` needs NetworkLayerObservability, which only the trait Observability builds: Benchmarks'
// manifest turns it on and defines `BENCH_OBSERVE`; `make instructions` builds these sources in
// Benchmarks/InstructionClient, with no trait, where `--observe` is refused.
//
// `--step NAME` (repeatable) switches one built-in step on for every request, as the README and the
// DocC articles show it, so that `make instructions INSTRUCTIONS_ARGS="--steps"` can say what each costs
// when on. A limit is set above any concurrency the runner uses, so nothing waits: what is measured is
// its bookkeeping. Nothing fails against nginx, so `retry` and `breaker` never act. Hedges may be sent:
// nginx's request count, which the runner reads, shows how many.
import BenchSupport
import Foundation
import NetworkLayer
#if BENCH_OBSERVE
import NetworkLayerObservability
#endif
import Synchronization

/// The server under test, taken from `--url`.
struct BenchServer: ServiceProvider {
    let host: String
    let httpScheme: HTTPScheme
    let port: Int?
    var retryPolicy: RetryPolicy?
    var circuitBreaker: CircuitBreaker?
    var authentication: Authentication?
}

/// `--step middleware` and `network-middleware`: a middleware that only passes the call on.
struct PassThroughMiddleware: RequestMiddleware {
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        try await next(request)
    }
}

/// The same server, for the decoding scenario: the default validation and decoding, plus the body
/// size check and byte count the raw-body path does on `Data` (a decoded `[Item]` has no size).
/// This is the Getting started article's pattern for a provider with its own validation.
struct CountingBenchServer: ServiceProvider {
    let server: BenchServer
    let expectedBytes: Int?
    let receivedBytes: ByteCounter

    var host: String { server.host }
    var httpScheme: HTTPScheme { server.httpScheme }
    var port: Int? { server.port }

    func parseAndValidate<Response: Decodable>(_ response: HTTPResponse, as type: Response.Type) throws -> Response {
        try response.validateStatus()
        receivedBytes.add(response.body.count)
        if let expectedBytes, response.body.count != expectedBytes {
            throw NetworkError.customUser(description: "\(response.body.count) body bytes, expected \(expectedBytes)",
                                          recovery: "Check the fixture the runner wrote.", code: response.statusCode)
        }
        return try response.decode(type)
    }
}

/// A thread-safe running total, shared by the concurrent requests.
final class ByteCounter: Sendable {
    private let total = Atomic<Int>(0)
    func add(_ count: Int) { total.add(count, ordering: .relaxed) }
    var value: Int { total.load(ordering: .relaxed) }
}

/// GET of the raw body: no decoding.
final class RawBodyRequest: BaseRequest<Data> {
    init(server: BenchServer, path: String) {
        super.init(serviceProvider: server, endpoint: path)
        requestTimeout = .seconds(300)
        hedging = requestHedging
    }
}

/// GET of the small JSON object, decoded by the library into a `Decodable` (the default provider,
/// as a user would write it).
final class SmallObjectRequest: BaseRequest<SmallObject> {
    init(server: BenchServer, path: String) {
        super.init(serviceProvider: server, endpoint: path)
        requestTimeout = .seconds(300)
        hedging = requestHedging
    }
}

/// GET streamed to a file: the library writes the body to a temporary file and moves it into place.
final class FileDownloadRequest: BaseRequest<DownloadedFile> {
    init(server: BenchServer, path: String, destination: String) {
        super.init(serviceProvider: server, endpoint: path)
        downloadDestination = URL(fileURLWithPath: destination)
        requestTimeout = .seconds(300)
    }
}

/// GET of a `text/event-stream` body, read as server-sent events while it arrives.
final class EventStreamRequest: BaseRequest<EventStream> {
    init(server: BenchServer, path: String) {
        super.init(serviceProvider: server, endpoint: path)
        requestTimeout = .seconds(300)
    }
}

/// GET of a body read as `Data` chunks while it arrives.
final class ByteStreamRequest: BaseRequest<ByteStream> {
    init(server: BenchServer, path: String) {
        super.init(serviceProvider: server, endpoint: path)
        requestTimeout = .seconds(300)
    }
}

/// GET of the 100 KB JSON array, decoded by the library into `[Item]`.
final class ItemsRequest: BaseRequest<[Item]> {
    init(server: CountingBenchServer, path: String) {
        super.init(serviceProvider: server, endpoint: path)
        requestTimeout = .seconds(300)
        hedging = requestHedging
    }
}

let options = Options.parse()
/// `--step hedging`, for the requests that read a whole body.
let requestHedging: Hedging? = options.steps.contains("hedging") ? .after(.percentile(95), maximumExtra: 1) : nil
guard let url = URLComponents(string: options.url), let host = url.host,
      let scheme = url.scheme.flatMap(HTTPScheme.init(rawValue:)) else {
    fatalError("not an http(s) URL: \(options.url)")
}
let server = BenchServer(
    host: host, httpScheme: scheme, port: url.port,
    retryPolicy: options.steps.contains("retry") ? RetryPolicy() : nil,
    circuitBreaker: options.steps.contains("breaker") ? CircuitBreaker() : nil,
    authentication: options.steps.contains("sigv4")
        ? .awsSigV4(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                    region: "us-east-1", service: "s3") : nil)
let path = url.percentEncodedPath + (url.percentEncodedQuery.map { "?\($0)" } ?? "")

Net.isVerbose = false
if options.steps.contains("limit") { Net.maximumRequestsPerOrigin = .fixed(64) }
if options.steps.contains("adaptive") { Net.maximumRequestsPerOrigin = .adaptive(minimum: 64, maximum: 200, initial: 64) }
if options.steps.contains("middleware") { Net.middlewares = [PassThroughMiddleware()] }
if options.steps.contains("network-middleware") { Net.networkMiddlewares = [PassThroughMiddleware()] }
if options.steps.contains("log") {
    Net.isVerbose = true
    Net.logHandler = { _ in }
}
if options.steps.contains("log-entries") { Net.logEntryHandler = { _ in } }
/// Kept for the whole run: a cancelled (released) subscription would stop the events.
let eventSubscription = options.steps.contains("events") ? Net.addEventHandler { _ in } : nil
if let cacert = options.cacert { Net.customCABundle = URL(fileURLWithPath: cacert) }
// The library's engine (its libcurl thread, `curl_global_init`, the multi handle) starts before the
// clock, as the C client makes its multi and easy handles and AsyncHTTPClient and URLSession their
// clients before theirs. Without this the first request pays for it (about 1.5 ms), which a
// one-request scenario (4, 6, 7) counts. With no connection open yet, this closes nothing.
Net.closeIdleConnections()

enum Resident {
    /// The process's resident size in KB, from /proc/self/statm.
    static func kilobytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }
}

/// Scenario 8: the resident size after the first 1,000 timed hits, and the responses that were not hits.
let residentAfterWarmUp = Atomic<Int>(0)
let notHits = ByteCounter()
let cacheDirectory = options.cache == "disk"
    ? FileManager.default.temporaryDirectory.appendingPathComponent("bench-cache-\(ProcessInfo.processInfo.processIdentifier)") : nil
if let cacheDirectory {
    Net.cache = .disk(directory: cacheDirectory, limit: 64 << 20)
} else if options.cache == "memory" {
    Net.cache = .memory(limit: 64 << 20)
}

if options.observe {
    #if BENCH_OBSERVE
    Net.middlewares = [TracingMiddleware(), MetricsMiddleware()]
    #else
    printError("--observe needs NetworkLayerObservability: build this client in Benchmarks/ (make bench), not Benchmarks/InstructionClient\n")
    exit(2)
    #endif
}

let decodedBytes = ByteCounter()
let decodingServer = CountingBenchServer(server: server, expectedBytes: options.expectBytes, receivedBytes: decodedBytes)

runBlockingMain {
    if options.cache != nil {
        do {
            _ = try await Net.perform(RawBodyRequest(server: server, path: path))  // the one miss: primes the cache
        } catch {
            printError("priming the cache failed: \(error)\n")
            exit(1)
        }
    }
    let executor: (any TaskExecutor)? = options.engineExecutor ? NetworkManager.engineExecutor : nil
    let (tally, elapsed) = await withTaskExecutorPreference(executor) { await runRequests(options) { index in
        do {
            if options.decode {
                // The provider has checked the status and that the body had exactly the expected size
                // (so `bytes` below is that size), and counted the bytes it actually received.
                let items = try await Net.perform(ItemsRequest(server: decodingServer, path: path))
                return Outcome.check(status: 200, bytes: options.expectBytes ?? 0, items: items.count, options: options)
            }
            if options.decodeObject {
                // Decoded with the library's default validation and decoding; the fields are checked,
                // so a wrong body fails even if it decodes. The size is the fixture's (nginx counts the requests).
                let object = try await Net.perform(SmallObjectRequest(server: server, path: path))
                guard object.isTheFixture else { return .failed("decoded an object that is not the fixture") }
                return Outcome.check(status: 200, bytes: options.expectBytes ?? 0, options: options)
            }
            if options.events {
                let events = try await Net.perform(EventStreamRequest(server: server, path: path))
                var count = 0
                var dataBytes = 0
                if options.borrowed {
                    try await events.forEachEvent { event in
                        count += 1
                        dataBytes += event.data.byteCount
                    }
                } else {
                    for try await event in events {
                        count += 1
                        dataBytes += event.data.utf8.count
                    }
                }
                return Outcome.check(status: events.response.statusCode, bytes: options.expectBytes ?? 0,
                                     items: count, dataBytes: dataBytes, options: options)
            }
            if options.stream {
                let stream = try await Net.perform(ByteStreamRequest(server: server, path: path))
                var size = 0
                for try await chunk in stream { size += chunk.count }
                return Outcome.check(status: stream.response.statusCode, bytes: size, options: options)
            }
            if let output = options.output {
                let file = try await Net.perform(FileDownloadRequest(server: server, path: path, destination: output))
                return Outcome.check(status: 200, bytes: Int(file.size), options: options)
            }
            if options.cache != nil {
                let (body, response) = try await Net.performWithResponse(RawBodyRequest(server: server, path: path))
                if response.cacheStatus != .hit { notHits.add(1) }
                if index == 999 { residentAfterWarmUp.store(Resident.kilobytes(), ordering: .relaxed) }
                return Outcome.check(status: response.cacheStatus == .hit ? 200 : -1, bytes: body.count, options: options)
            }
            let body = try await Net.perform(RawBodyRequest(server: server, path: path))
            // `Net.perform` throws for any status outside 200..<300; the server only answers 200.
            return Outcome.check(status: 200, bytes: body.count, options: options)
        } catch {
            return .failed("\(error)")
        }
    } }

    var total = tally
    if options.decode { total.bytes = decodedBytes.value }
    var note: String?
    if options.cache != nil {
        let warm = residentAfterWarmUp.load(ordering: .relaxed)
        note = "rss growth \(warm > 0 ? Resident.kilobytes() - warm : 0) KB after the first 1,000 hits; \(notHits.value) not hits"
        if let cacheDirectory { try? FileManager.default.removeItem(at: cacheDirectory) }
    }
    report(client: "networklayer", options, total, elapsed, note: note)
}
