import Foundation
import Logging
import NetworkLayer

// A request answered from MockResponses/ (no network needed), logged through swift-log's
// standard-output handler instead of NetworkLayer's text log.

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

Net.isVerbose = false  // no text log on standard error
Net.areMocksEnabled = true
Net.mockResponsesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("MockResponses", isDirectory: true)
logger.receiveNetworkLog()

do {
    let greeting = try await Net.perform(GreetingRequest())
    print("answer: \(greeting.message)")
} catch {
    print("failed: \(error.localizedDescription)")
    exit(1)
}
