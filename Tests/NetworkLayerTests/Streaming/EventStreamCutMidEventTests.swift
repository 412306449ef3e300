import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A connection cut inside an event, before its blank line (what a network cut does): the event
/// is discarded and its id with it, so the reconnection's `Last-Event-ID` is the id of the last
/// event the loop got, and the server resumes with the event that was cut. Against
/// sse_server.py's `/sse/resumable` with `partial`, which sends the first bytes of the next event
/// before ending the connection and records every request's `Last-Event-ID`.
@Suite("Event stream cut mid-event", .sharing)
struct EventStreamCutMidEventTests {
    /// Tick `n` as sse_server.py writes it, with `id` in its id line.
    static func frame(_ n: Int, id: String) -> [UInt8] {
        Array("id: \(id)\nevent: tick\ndata: {\"n\":\(n),\"pad\":\"\"}\n\n".utf8)
    }

    @Test("A connection cut at any byte of an event before its blank line (inside id:, after it, inside data:, before the blank line) resumes after the last dispatched event: Last-Event-ID is its id, every event once",
          arguments: ["abandon", "clean"], ["6", "999"])
    func cutAtEveryByteOfAnEvent(end: String, cutID: String) async throws {
        // Events 1…5, then all but the end of event 6 (its own id, or the 999), then the cut.
        let frame = Self.frame(6, id: cutID)
        try await withSSEServer { server in
            let net = makeManager()
            let outcomes = try await withThrowingTaskGroup(of: (Int, [Int], [String?], NetworkError?).self) { group in
                for sent in 0..<frame.count {
                    group.addTask {
                        let key = "mid-\(end)-\(cutID)-\(sent)"
                        let request = EventStreamReconnectionTests.request(
                            server, "count=8&cut=5&retry=0&partial=\(sent)&partialid=\(cutID)&end=\(end)&key=\(key)")
                        let (events, error) = await collect(try await net.perform(request))
                        return (sent, try EventStreamReconnectionTests.ticks(events), events.map(\.id), error)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for (sent, ticks, ids, error) in outcomes.sorted(by: { $0.0 < $1.0 }) {
                let cut = String(decoding: frame.prefix(sent), as: UTF8.self).debugDescription
                #expect(error == nil, "cut after \(cut)")
                #expect(ticks == Array(1...8), "cut after \(cut)")
                #expect(ids == (1...8).map { "\($0)" }, "cut after \(cut)")
                // The cut connection, the one resuming after 5 that ends cleanly after 8, its 204.
                let log = try await EventStreamReconnectionTests.log(of: server, key: "mid-\(end)-\(cutID)-\(sent)")
                #expect(log.lastEventIDs == [nil, "5", "8"], "cut after \(cut)")
            }
        }
    }
}
