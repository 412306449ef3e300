import Foundation
import Testing
import TestScheduling

extension Reliability {
    /// Issue 54: 10,000 requests held by a server that never answers, then cancelled, must give
    /// back what they took. Every transfer's memory is freed when it ends, but glibc keeps what a
    /// burst freed in its arenas: the engine hands it back to the system once it is quiet after one.
    /// In a process of its own (RequestProbe), so that no other test's memory is measured; alone,
    /// since it holds 10,000 sockets.
    @Suite("A cancellation storm gives its memory back", .serialized, .measuring)
    struct CancelStormMemoryTests {
        struct Storm: Decodable {
            let baselineMB: Double, peakMB: Double, afterMB: Double
            let accepted: Int, cancelled: Int, other: Int
            let maxCancelMilliseconds: Double
        }

        @Test("10,000 requests to a silent server, cancelled at once: all end .cancelled within 2 s, and the resident size returns near where it started")
        func tenThousandCancelledRequestsReturnTheirMemory() async throws {
            let server = try ServerProcess(python: ["-S", testsDirectory.appendingPathComponent("Servers/silent_server.py").path],
                                           name: "silent_server.py")
            defer { server.stop() }
            let report = try await RequestProbe.send(.cancelStorm("/never", count: 10_000), port: server.port)
            let storm = try JSONDecoder().decode(Storm.self, from: Data((report.body ?? "").utf8))
            #expect(report.outcome == "success", "\(report)")
            #expect(storm.accepted >= 10_000, "the server held \(storm.accepted) requests: the storm did not happen")
            #expect(storm.cancelled == 10_000 && storm.other == 0)
            #expect(storm.maxCancelMilliseconds < 2_000, "the last cancellation ended after \(storm.maxCancelMilliseconds) ms")
            // The storm took hundreds of megabytes (about 45 KB a request in flight); what stays is
            // the engine's pools, bounded whatever the storm: within 64 MB of the start.
            #expect(storm.peakMB - storm.baselineMB > 150, "the peak grew by \(storm.peakMB - storm.baselineMB) MB only")
            #expect(storm.afterMB - storm.baselineMB < 64,
                    "\(storm.afterMB - storm.baselineMB) MB stayed after the storm (peak \(storm.peakMB) MB)")
        }
    }
}
