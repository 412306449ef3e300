// bench-openapi: the client swift-openapi-generator makes of Examples/OpenAPIClient's openapi.yaml,
// its `getGreeting` operation (a small JSON body decoded into `Components.Schemas.Greeting`), over
// one of three transports chosen by `--transport`:
//
// - `networklayer`: `NetworkLayerTransport` on `Net`, logging off, as bench-networklayer runs it;
// - `ahc`: `AsyncHTTPClientTransport` on one `HTTPClient`, its HTTP/1.1 pool raised to
//   `--concurrency` as in bench-ahc;
// - `urlsession`: `URLSessionTransport` on one `URLSession`, its connections per host raised to
//   `--concurrency` as in bench-urlsession.
//
// `--url` is the client's server URL (the runner's `/v1`, where nginx serves the greeting). Each
// response must be `.ok` with the greeting's message; its UTF-8 size is the body size the runner
// checks (the generated client hands back the decoded value, not the bytes).
import AsyncHTTPClient
import BenchSupport
import Foundation
import NetworkLayer
import NetworkLayerOpenAPI
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import OpenAPIURLSession
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let options = Options.parse()
guard let serverURL = URL(string: options.url), let host = serverURL.host else {
    fatalError("--url must be an absolute URL: \(options.url)")
}

/// The server under test, for NetworkLayerTransport's rules (its origin is the server URL's).
struct BenchServer: ServiceProvider {
    let host: String
    let httpScheme: HTTPScheme
    let port: Int?
}

let transport: any ClientTransport
switch options.transport {
case "ahc":
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60),
                                         concurrentHTTP1ConnectionsPerHostSoftLimit: options.concurrency)
    let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    transport = AsyncHTTPClientTransport(configuration: .init(client: client, timeout: .seconds(300)))
case "urlsession":
    let configuration = URLSessionConfiguration.default
    configuration.httpMaximumConnectionsPerHost = options.concurrency
    configuration.timeoutIntervalForRequest = 300
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    transport = URLSessionTransport(configuration: .init(session: URLSession(configuration: configuration)))
default:
    Net.isVerbose = false
    // Starts the libcurl thread before the clock, as bench-networklayer does.
    Net.closeIdleConnections()
    let server = BenchServer(host: host, httpScheme: serverURL.scheme == "https" ? .https : .http, port: serverURL.port)
    transport = NetworkLayerTransport(provider: server)
}
let client = Client(serverURL: serverURL, transport: transport)

runBlockingMain {
    let executor: (any TaskExecutor)? = options.engineExecutor ? NetworkManager.engineExecutor : nil
    let (tally, elapsed) = await withTaskExecutorPreference(executor) { await runRequests(options) { _ in
        do {
            switch try await client.getGreeting(query: .init(name: "Ada")) {
            case .ok(let ok):
                return Outcome.check(status: 200, bytes: try ok.body.json.message.utf8.count, options: options)
            case .undocumented(let status, _):
                return Outcome.check(status: status, bytes: 0, options: options)
            }
        } catch {
            return .failed("\(error)")
        }
    } }
    report(client: "openapi-\(options.transport)", options, tally, elapsed)
}
