#if IntegrationTests
import Foundation
import Logging
import NetworkLayerObservability
import Testing
import TestScheduling
@testable import NetworkLayer

/// A swift-log handler that keeps what it is given.
struct CollectingLogHandler: LogHandler {
    struct Line: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    let lines: CallRecorder<Line>
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.record(Line(level: event.level, message: "\(event.message)",
                          metadata: (event.metadata ?? [:]).mapValues { "\($0)" }))
    }
}

@Suite("Observability: SwiftLogBridge", .sharing)
struct SwiftLogBridgeTests {
    @Test("Entries reach swift-log at their levels with the documented metadata; no credential, no raw control character")
    func entriesReachSwiftLog() async throws {
        let server = try await TestServer.shared()
        let lines = CallRecorder<CollectingLogHandler.Line>()
        let logger = Logger(label: "network") { _ in CollectingLogHandler(lines: lines) }
        let net = makeManager()
        net.logEntryHandler = SwiftLogBridge(logger: logger).handle
        let provider = AuthProvider(port: server.port, authentication: .bearer("sekrit-token"))
        _ = try await net.perform(TestRequest<Echo>(provider, "/echo?api_key=hunter2"))
        _ = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<JSONValue>(server.provider(), "/status/404")) }

        let all = lines.values
        let request = try #require(all.first { $0.metadata["networklayer.phase"] == "request" && $0.level == .info })
        #expect(request.metadata["http.request.method"] == "GET")
        #expect(request.metadata["url.full"]?.contains("api_key=<redacted>") == true)
        let response = try #require(all.first { $0.metadata["networklayer.phase"] == "response" && $0.level == .info })
        #expect(response.metadata["http.response.status_code"] == "200")
        #expect(response.metadata["networklayer.elapsed_ms"] != nil)
        let failure = try #require(all.first { $0.metadata["networklayer.phase"] == "failure" })
        #expect(failure.level == .error)
        #expect(failure.metadata["error.message"]?.isEmpty == false)
        #expect(all.contains { $0.level == .debug && $0.metadata["networklayer.curl"] != nil })
        let text = all.map { "\($0.message) \($0.metadata)" }.joined()
        #expect(!text.contains("sekrit-token") && !text.contains("hunter2"))
    }

    @Test("A server's control characters arrive escaped")
    func controlCharactersEscaped() async throws {
        try await withFaultServer { server in
            let lines = CallRecorder<CollectingLogHandler.Line>()
            let net = makeManager()
            net.logEntryHandler = SwiftLogBridge(logger: Logger(label: "network") { _ in CollectingLogHandler(lines: lines) }).handle
            _ = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<JSONValue>(server.provider(), "/hostile-text?status=500")) }
            let text = lines.values.map { "\($0.message) \($0.metadata)" }.joined()
            #expect(!text.isEmpty)
            #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" })
        }
    }
}
#endif
