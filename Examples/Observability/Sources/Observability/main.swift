import Foundation
import Logging
import NetworkLayer
import NetworkLayerObservability
import OTel
import Tracing

// 1. The log through swift-log: a request answered from MockResponses/ (no network needed).
// 2. With `--server <url>`: a live call traced by swift-otel's tracer, whose W3C `traceparent` the
//    server echoes back; the program checks it names the call's span, a child of its own.

struct GreetingProvider: ServiceProvider {
    var host: String { "api.example.com" }
    var httpScheme: HTTPScheme { .https }
    func createHTTPHeaders() -> [String: String] { ["Authorization": "Bearer secret-token"] }
}

struct Greeting: Decodable, Sendable {
    let message: String
}

final class GreetingRequest: BaseRequest<Greeting> {
    init() {
        super.init(serviceProvider: GreetingProvider(), endpoint: "/greeting")
        mockedResponseFilename = "Greeting"
    }
}

LoggingSystem.bootstrap(StreamLogHandler.standardOutput)
var logger = Logger(label: "network")
logger.logLevel = .info  // bodies are debug entries: not formatted at info

let mocked = NetworkManager()
mocked.isVerbose = false  // no text log on standard error
mocked.areMocksEnabled = true
mocked.mockResponsesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("MockResponses", isDirectory: true)
mocked.logEntryHandler = SwiftLogBridge(logger: logger).handle

do {
    let greeting = try await mocked.perform(GreetingRequest())
    print("answer: \(greeting.message)")
} catch {
    print("failed: \(error.localizedDescription)")
    exit(1)
}

// MARK: - Tracing with swift-otel

guard let index = CommandLine.arguments.firstIndex(of: "--server"), index + 1 < CommandLine.arguments.count,
      let server = URL(string: CommandLine.arguments[index + 1]), let host = server.host, let port = server.port else {
    exit(0)
}

struct EchoProvider: ServiceProvider {
    let host: String
    let port: Int?
    var httpScheme: HTTPScheme { .http }
}

/// What the test server's `/echo` answers: the headers it received.
struct Echo: Decodable, Sendable {
    let headers: [String: String]
}

final class EchoRequest: BaseRequest<Echo> {
    init(host: String, port: Int) {
        super.init(serviceProvider: EchoProvider(host: host, port: port), endpoint: "/echo")
    }
}

/// The propagation fields a tracer writes, as a dictionary.
struct FieldInjector: Injector {
    func inject(_ value: String, forKey key: String, into fields: inout [String: String]) { fields[key] = value }
}

var configuration = OTel.Configuration.default
configuration.traces.exporter = .none
configuration.metrics.enabled = false
configuration.logs.enabled = false
configuration.serviceName = "observability-example"
let backend = try OTel.makeTracingBackend(configuration: configuration)
let tracer = backend.factory

let traced = NetworkManager()
traced.isVerbose = false
traced.middlewares = [TracingMiddleware(tracer: tracer)]

let parent = tracer.startSpan("checkout")
var parentFields: [String: String] = [:]
tracer.inject(parent.context, into: &parentFields, using: FieldInjector())
let echo = try await ServiceContext.$current.withValue(parent.context) {
    try await traced.perform(EchoRequest(host: host, port: port))
}
parent.end()

let received = echo.headers.first { $0.key.lowercased() == "traceparent" }?.value ?? ""
let parentContext = parentFields["traceparent"] ?? ""
print("parent traceparent: \(parentContext)")
print("server received traceparent: \(received)")
// version-traceid-parentid-flags: the same trace as the caller's span, another span (the call's).
let receivedParts = received.split(separator: "-")
let parentParts = parentContext.split(separator: "-")
guard receivedParts.count == 4, parentParts.count == 4, receivedParts[0] == "00", receivedParts[1].count == 32,
      receivedParts[2].count == 16, receivedParts[1] == parentParts[1], receivedParts[2] != parentParts[2] else {
    print("traceparent MISMATCH")
    exit(1)
}
print("traceparent OK: the call's span, in the caller's trace")
