import Foundation
import Testing
import TestScheduling

/// libcurl takes its allocation functions only from the call that initialises it. NetworkLayer
/// initialises it, with the receive-buffer cache's, before its first handle of any kind, whatever
/// that handle is; when something else initialised libcurl first, the cache is off and requests
/// still work. Each order runs in a process of its own (Tests/LibcurlInitProbe): in the test
/// process, whichever test touched libcurl first would decide.
@Suite("libcurl's initialisation", .sharing)
struct LibcurlInitTests {
    struct Report: Decodable, Sendable {
        let caches: Bool
        let engine: Bool
    }

    static let probe = ProbeProcess(name: "LibcurlInitProbe", deadline: .seconds(60))

    @Test("Whatever NetworkLayer makes first, libcurl allocates through the receive-buffer cache",
          arguments: ["easy", "share", "engine"])
    func networkLayerFirst(first: String) async throws {
        let report = try await Self.probe.run([first], as: Report.self)
        #expect(report.caches)
        #expect(report.engine)
    }

    @Test("libcurl initialised by something else first keeps its allocation functions, and the engine still starts")
    func somethingElseFirst() async throws {
        let report = try await Self.probe.run(["foreign"], as: Report.self)
        #expect(!report.caches)
        #expect(report.engine)
    }
}
