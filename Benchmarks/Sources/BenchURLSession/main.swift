// bench-urlsession: Foundation's URLSession on Linux (FoundationNetworking), with its async API.
//
// One session for the whole run, its connection limit per host raised to `--concurrency` (the
// default is 6) so it may keep as many connections as the other clients. Small GETs use
// `data(from:)`; `--decode` decodes the body with `JSONDecoder` into `[Item]`; `--output` uses
// `download(from:)`, which streams the body to a temporary file, then moves it into place.
//
// HTTPS: URLSession on Linux has no API to trust a private CA (no server-trust evaluation at all);
// it verifies against the system's CA bundle. `--cacert` is therefore not used here: the runner
// starts this client in a private mount namespace where the test CA is bind-mounted over the
// system bundle. HTTP/2: FoundationNetworking leaves libcurl's default HTTP version (HTTP/2 over
// TLS when the server offers it, by ALPN) and turns on multiplexing, so it negotiates HTTP/2 with
// this libcurl by itself; `--http2` has no switch to turn and is ignored.
//
// Streams (`--stream`, `--events`): FoundationNetworking has no `bytes(for:)`, so the async API
// cannot stream; the only way is the delegate API, `URLSessionDataDelegate`'s
// `urlSession(_:dataTask:didReceive:)`, which hands each chunk to a delegate queue as it arrives
// (without backpressure: nothing slows libcurl down when the queue falls behind). The chunks are
// counted, and with `--events` go through the same minimal splitter as AsyncHTTPClient's.
import BenchSupport
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let options = Options.parse()
guard let url = URL(string: options.url) else { fatalError("not a URL: \(options.url)") }

let configuration = URLSessionConfiguration.default
configuration.httpMaximumConnectionsPerHost = options.concurrency
configuration.timeoutIntervalForRequest = 300
configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
configuration.urlCache = nil
let session = URLSession(configuration: configuration)

extension URLResponse {
    /// The HTTP status, or -1 when the response is not HTTP.
    var status: Int { (self as? HTTPURLResponse)?.statusCode ?? -1 }
}

/// Reads one streamed response through the delegate API: counts its bytes and, with `--events`,
/// its events and their data's size.
final class StreamingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: NSObject is not Sendable; every stored property is a `let`, the mutable
    // state is in the Mutex.
    struct State {
        var size = 0
        var events = 0
        var dataBytes = 0
        var splitter = EventSplitter()
        var finished: CheckedContinuation<Int, any Error>?
    }

    let countsEvents: Bool
    let state = Mutex(State())

    init(countsEvents: Bool) {
        self.countsEvents = countsEvents
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { state in
            state.size += data.count
            guard countsEvents else { return }
            data.withUnsafeBytes { bytes in
                state.splitter.feed(bytes) { _, data in
                    state.events += 1
                    state.dataBytes += data.utf8.count
                }
            }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let finished = state.withLock { state in
            defer { state.finished = nil }
            return state.finished
        }
        if let error { finished?.resume(throwing: error) } else { finished?.resume(returning: task.response?.status ?? -1) }
    }

    /// Runs one GET of `url` through `session` (whose delegate this is); returns the status.
    func stream(_ url: URL, in session: URLSession) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            state.withLock { $0.finished = continuation }
            session.dataTask(with: url).resume()
        }
    }
}

runBlockingMain {
    let (tally, elapsed) = await runRequests(options) { _ in
        do {
            if options.stream || options.events {
                let delegate = StreamingDelegate(countsEvents: options.events)
                let queue = OperationQueue()
                queue.maxConcurrentOperationCount = 1
                let streaming = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
                defer { streaming.finishTasksAndInvalidate() }
                let status = try await delegate.stream(url, in: streaming)
                let state = delegate.state.withLock { ($0.size, $0.events, $0.dataBytes) }
                return Outcome.check(status: status, bytes: state.0, items: options.events ? state.1 : nil,
                                     dataBytes: options.events ? state.2 : nil, options: options)
            }
            if let output = options.output {
                let (temporary, response) = try await session.download(from: url)
                let destination = URL(fileURLWithPath: output)
                try? FileManager.default.removeItem(at: destination)
                try FileManager.default.moveItem(at: temporary, to: destination)
                let size = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int ?? -1
                return Outcome.check(status: response.status, bytes: size, options: options)
            }
            let (body, response) = try await session.data(from: url)
            if options.decode {
                let items = try JSONDecoder().decode([Item].self, from: body)
                return Outcome.check(status: response.status, bytes: body.count, items: items.count, options: options)
            }
            return Outcome.check(status: response.status, bytes: body.count, options: options)
        } catch {
            return .failed("\(error)")
        }
    }
    report(client: "urlsession", options, tally, elapsed)
}
