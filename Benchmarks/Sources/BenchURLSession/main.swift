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
import BenchSupport
import Foundation
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

runBlockingMain {
    let (tally, elapsed) = await runRequests(options) { _ in
        do {
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
