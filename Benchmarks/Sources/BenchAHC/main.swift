// bench-ahc: AsyncHTTPClient (SwiftNIO), with its async/await API.
//
// One `HTTPClient` for the whole run, on NIO's shared event loop group (one loop per core). Its
// HTTP/1.1 pool is raised from the default 8 connections per host to `--concurrency`, so it may keep
// as many connections as the other clients. `--cacert` becomes the TLS trust roots. HTTP/2 is
// negotiated by ALPN over TLS when `--http2` is given (AsyncHTTPClient's default); without it the
// client is held to HTTP/1.1.
//
// Small GETs collect the body into one `ByteBuffer`; `--decode` decodes that buffer with
// `JSONDecoder` (NIOFoundationCompat's overload) into `[Item]`; `--output` streams the body's
// chunks into the file as they arrive.
//
// `--stream` (scenario 7) adds up the size of the body's chunks as they arrive without keeping them.
// `--events` (scenario 6): AsyncHTTPClient has no server-sent-events parser, so the chunks go
// through the bench's own minimal splitter (`EventSplitter` in BenchSupport: blank lines, `data:` and
// `id:`, LF only), which hands each event's data as a `String`; the events are counted and their
// data's UTF-8 size added up as a checksum.
import AsyncHTTPClient
import BenchSupport
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOSSL

let options = Options.parse()

var configuration = HTTPClient.Configuration()
configuration.connectionPool = .init(idleTimeout: .seconds(60),
                                     concurrentHTTP1ConnectionsPerHostSoftLimit: options.concurrency)
if options.url.hasPrefix("https:") {
    var tls = TLSConfiguration.makeClientConfiguration()
    if let cacert = options.cacert { tls.trustRoots = .file(cacert) }
    configuration.tlsConfiguration = tls
    configuration.httpVersion = options.http2 ? .automatic : .http1Only
}
let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)

/// The largest body collected in memory (the 100 MB download, with room to spare).
let maximumBody = 256 * 1024 * 1024

runBlockingMain {
    let (tally, elapsed) = await runRequests(options) { _ in
        do {
            let response = try await client.execute(HTTPClientRequest(url: options.url), timeout: .seconds(300))
            let status = Int(response.status.code)
            if let output = options.output {
                guard let file = fopen(output, "wb") else { return .failed("cannot open \(output)") }
                defer { fclose(file) }
                var size = 0
                for try await chunk in response.body {
                    size += chunk.readableBytes
                    let written = chunk.withUnsafeReadableBytes { fwrite($0.baseAddress, 1, $0.count, file) }
                    if written != chunk.readableBytes { return .failed("cannot write \(output)") }
                }
                return Outcome.check(status: status, bytes: size, options: options)
            }
            if options.events {
                var splitter = EventSplitter()
                var size = 0, count = 0, dataBytes = 0
                for try await chunk in response.body {
                    size += chunk.readableBytes
                    chunk.withUnsafeReadableBytes { bytes in
                        splitter.feed(bytes) { _, data in
                            count += 1
                            dataBytes += data.utf8.count
                        }
                    }
                }
                return Outcome.check(status: status, bytes: size, items: count, dataBytes: dataBytes, options: options)
            }
            if options.stream {
                var size = 0
                for try await chunk in response.body { size += chunk.readableBytes }
                return Outcome.check(status: status, bytes: size, options: options)
            }
            let body = try await response.body.collect(upTo: maximumBody)
            if options.decode {
                let items = try JSONDecoder().decode([Item].self, from: body)
                return Outcome.check(status: status, bytes: body.readableBytes, items: items.count, options: options)
            }
            return Outcome.check(status: status, bytes: body.readableBytes, options: options)
        } catch {
            return .failed("\(error)")
        }
    }
    try? await client.shutdown().get()
    report(client: "ahc", options, tally, elapsed)
}
