import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `ByteStream.forEachLine` and `JSONLines.forEachLine`: lines lent as views, against
/// sse_server.py's `/lines` (LF, CRLF, split UTF-8, a last line without its end) and `/ndjson`.
@Suite("Line views", .sharing)
struct LineViewTests {
    @Test("ByteStream.forEachLine gives the lines stream.lines gives, numbered from 1")
    func sameLinesAsTheLoop() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            var viewed: [String] = []
            var numbers: [Int] = []
            try await net.perform(StreamRequest<ByteStream>(server.provider(), "/lines")).forEachLine { line in
                viewed.append(line.string)
                numbers.append(line.number)
                let same = line.equals(line.string)
                #expect(same)
            }
            let looped = await collectLines(try await net.perform(StreamRequest<ByteStream>(server.provider(), "/lines")))
            #expect(looped.error == nil)
            #expect(!viewed.isEmpty)
            #expect(viewed == looped.lines)
            #expect(numbers == Array(1...viewed.count))
        }
    }

    @Test("JSONLines.forEachLine skips blank lines as the loop does and decodes each with the request's decoder")
    func jsonLines() async throws {
        try await withSSEServer { server in
            var values: [Int] = []
            var numbers: [Int] = []
            try await makeManager().perform(StreamRequest<JSONLines<Tick>>(server.provider(), "/ndjson")).forEachLine { line in
                values.append(try line.decode(Tick.self).n)
                numbers.append(line.number)
            }
            #expect(values == [1, 2, 3, 4, 5])
            #expect(numbers == [1, 3, 5, 6, 7])
        }
    }

    @Test("A line that does not decode throws .serialization naming its number, never its text, and the stream ends")
    func undecodableLine() async throws {
        try await withSSEServer { server in
            var values: [Int] = []
            do {
                try await makeManager().perform(StreamRequest<JSONLines<Tick>>(server.provider(), "/ndjson?bad=3")).forEachLine { line in
                    values.append(try line.decode(Tick.self).n)
                }
                Issue.record("the bad line decoded")
            } catch {
                guard case .serialization(let context)? = error as? NetworkError else { Issue.record("\(error)"); return }
                #expect(context.reason?.contains("line 3 of the NDJSON body") == true, "\(String(describing: context.reason))")
                #expect(context.reason?.contains("oops") == false)
            }
            #expect(values == [1])
            // The server sleeps 10 s after the bad line (it learns of the close only then): the
            // client's side of the connection is what must be gone.
            let deadline = ContinuousClock.now + .seconds(5)
            while establishedConnections(toPort: server.port) > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(establishedConnections(toPort: server.port) == 0)
        }
    }

    @Test("A line without end ends forEachLine with .transport at 16 MB, and releases the connection")
    func endlessLine() async throws {
        try await withSSEServer { server in
            do {
                try await makeManager().perform(StreamRequest<ByteStream>(server.provider(), "/sse/hostile?kind=endless",
                                                                         timeout: TestTimeout.seconds(60))).forEachLine { _ in }
                Issue.record("the endless line ended")
            } catch {
                guard case .transport(let context)? = error as? NetworkError else { Issue.record("\(error)"); return }
                #expect(context.reason?.contains("longer than 16777216 bytes") == true, "\(String(describing: context.reason))")
            }
            let stats = try await server.statsOnceClosed()
            #expect(stats.open == 0)
        }
    }

    @Test("A line view kept past its closure does not compile")
    func viewCannotEscape() async throws {
        let outcome = try await Toolchain.compile("""
            import NetworkLayer
            func read(_ stream: ByteStream) async throws {
                var kept: RawSpan? = nil
                try await stream.forEachLine { line in kept = line.bytes }
                _ = kept
            }
            """)
        #expect(outcome.status != 0 && outcome.output.contains("escapes its scope"), "\(outcome)")
    }
}
