import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Bytes and lines as they arrive, and NDJSON, from a real server.
@Suite("Byte streams, lines and JSON Lines", .sharing)
struct ByteStreamTests {
    @Test("ByteStream delivers every byte in order, in chunks")
    func bytes() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(StreamRequest<ByteStream>(server.provider(), "/bytes?size=5000000&chunk=65536"))
            #expect(stream.response.value(forHeader: "Content-Length") == "5000000")
            var total = 0
            var chunks = 0
            var mismatch: Int?
            for try await chunk in stream {
                for (offset, byte) in chunk.enumerated() where mismatch == nil && byte != UInt8(truncatingIfNeeded: total + offset) {
                    mismatch = total + offset
                }
                total += chunk.count
                chunks += 1
            }
            #expect(total == 5_000_000)
            #expect(chunks > 1)
            #expect(mismatch == nil)
        }
    }

    @Test("lines splits at LF and CRLF (also split across chunks), decodes UTF-8 split across chunks, keeps the last unterminated line")
    func lines() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(StreamRequest<ByteStream>(server.provider(), "/lines"))
            var lines: [String] = []
            for try await line in stream.lines { lines.append(line) }
            #expect(lines == ["alpha", "beta", "gamma é", "", "last line without an end"])
        }
    }

    @Test("JSONLines decodes a value per line, skipping blank lines, CRLF or LF, the last line without an end included")
    func jsonLines() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(StreamRequest<JSONLines<Tick>>(server.provider(), "/ndjson"))
            var values: [Tick] = []
            for try await value in stream { values.append(value) }
            #expect(values == (1...5).map(Tick.init(n:)))
        }
    }

    @Test("A line that does not decode ends JSONLines with .serialization naming its line number, after the values before it")
    func jsonLinesFailure() async throws {
        try await withSSEServer { server in
            let stream = try await makeManager().perform(StreamRequest<JSONLines<Tick>>(server.provider(), "/ndjson?bad=5"))
            var values: [Tick] = []
            var failure: NetworkError?
            do throws(NetworkError) {
                for try await value in stream { values.append(value) }
            } catch {
                failure = error
            }
            #expect(values == [Tick(n: 1), Tick(n: 2)])
            guard case .serialization(let context)? = failure else {
                Issue.record("expected .serialization, got \(String(describing: failure))")
                return
            }
            #expect(context.reason?.hasPrefix("line 5 of the NDJSON body could not be decoded as Tick") == true, "\(context)")
            #expect(context.request?.contains("/ndjson?bad=5") == true)
            #expect(await waitForConnectionsToClose(toPort: server.port) != nil)
        }
    }

    @Test("Lines of random text in random chunkings give the same lines (500 seeded cases)")
    func linesProperty() throws {
        var random = SeededRandom(seed: 1414)
        let pieces = ["a", "bc", "é", "😀", " ", "\n", "\r\n", "\r", "\n\n"]
        for _ in 0..<500 {
            var text = ""
            for _ in 0..<Int.random(in: 0...40, using: &random) { text += pieces.randomElement(using: &random)! }
            let bytes = Array(text.utf8)
            func lines(_ chunks: [[UInt8]]) throws -> [String] {
                var parser = TextLineParser()
                var lines: [String] = []
                for chunk in chunks {
                    try chunk.withUnsafeBytes(typed: { (bytes) throws(StreamParseFailure) in try parser.feed(bytes, into: &lines) })
                }
                try parser.finish(into: &lines)
                return lines
            }
            // The bytes split at LF, one CR before it dropped (bytes: a Character "\r\n" is not "\n").
            var pieces = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
            if pieces.last?.isEmpty == true { pieces.removeLast() }  // after the last line end: no line
            let expected = pieces.map { String(decoding: $0.last == 0x0D ? $0.dropLast() : $0, as: UTF8.self) }
            let whole = try lines([bytes])
            #expect(whole == expected, "\(text.debugDescription)")
            #expect(try lines(randomChunks(of: bytes, using: &random)) == whole, "\(text.debugDescription)")
        }
    }
}
