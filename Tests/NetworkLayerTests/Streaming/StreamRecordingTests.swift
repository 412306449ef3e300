import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Record mode with streams: a live stream is written as the mock file its type reads
/// (`.sse`, `.ndjson`, `.bin`) while it is read, and replays as the same items.
@Suite("Recording streams", .sharing)
struct StreamRecordingTests {
    @Test("A live event stream is recorded as <name>.sse while it is read; replaying it in mock mode gives the same events")
    func recordThenReplayEvents() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withSSEServer { server in
            let live = makeManager()
            live.mockRecordingDirectory = directory
            let recorded = await collect(try await live.perform(StreamRequest<EventStream>(server.provider(), "/sse/rules", mock: "Rules")))
            #expect(recorded.error == nil)
            #expect(recorded.events == EventStreamTests.rulesEvents)
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("Rules.sse").path))
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("Rules.meta.json").path))

            let replay = makeManager(mocks: directory)
            let stream = try await replay.perform(StreamRequest<EventStream>(server.provider(), "/sse/rules", mock: "Rules"))
            #expect(stream.response.isMocked)
            let replayed = await collect(stream)
            #expect(replayed.error == nil)
            #expect(replayed.events == recorded.events)
            #expect(replayed.events.map(\.retry) == recorded.events.map(\.retry))
        }
    }

    @Test("JSONLines is recorded as <name>.ndjson and a ByteStream as <name>.bin, each replaying the same values and lines")
    func recordThenReplayLinesAndBytes() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withSSEServer { server in
            let live = makeManager()
            live.mockRecordingDirectory = directory
            let values = await collectValues(try await live.perform(StreamRequest<JSONLines<Tick>>(server.provider(), "/ndjson", mock: "Export")))
            let lines = await collectLines(try await live.perform(StreamRequest<ByteStream>(server.provider(), "/lines", mock: "Lines")))
            #expect(values.values.count == 5 && lines.lines.count == 5)
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("Export.ndjson").path))
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("Lines.bin").path))

            let replay = makeManager(mocks: directory)
            #expect(await collectValues(try await replay.perform(StreamRequest<JSONLines<Tick>>(server.provider(), "/ndjson", mock: "Export"))).values
                == values.values)
            #expect(await collectLines(try await replay.perform(StreamRequest<ByteStream>(server.provider(), "/lines", mock: "Lines"))).lines
                == lines.lines)
        }
    }

    @Test("A credential the server echoes into a recorded stream, cut across chunks or percent-escaped, is written as <redacted>")
    func echoedCredentialScrubbed() async throws {
        let token = "nlStreamToken7Rt9p"
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withSSEServer { server in
            let live = makeManager()
            live.mockRecordingDirectory = directory
            let provider = AuthProvider(port: server.port, authentication: .bearer(token))
            // Three bytes at a time: the token reaches the recorder in six pieces or more.
            let recorded = await collect(try await live.perform(StreamRequest<EventStream>(provider, "/sse/echo-auth?piece=3", mock: "Echo")))
            #expect(recorded.error == nil)
            #expect(recorded.events.first?.data == "Bearer \(token)", "the server echoed the token: the test means something")
            #expect(recorded.events.last?.data.contains("%6E%6C%53") == true, "and escaped it: \(recorded.events)")

            let file = try Data(contentsOf: directory.appendingPathComponent("Echo.sse"))
            #expect(!spellsSecret(token, in: file), "\(String(decoding: file, as: UTF8.self))")
            let replayed = await collect(try await makeManager(mocks: directory).perform(StreamRequest<EventStream>(provider, "/sse/echo-auth", mock: "Echo")))
            #expect(replayed.events.map(\.id) == ["1", "2"])
            #expect(replayed.events.allSatisfy { $0.data.contains("<redacted>") }, "\(replayed.events)")
        }
    }

    @Test("A stream that fails (a reset) is not recorded, and the log says so")
    func failedStreamNotRecorded() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withSSEServer { server in
            let log = LogCollector()
            let live = makeManager(log: log)
            live.mockRecordingDirectory = directory
            let result = await collect(try await live.perform(StreamRequest<EventStream>(server.provider(), "/sse/reset", mock: "Reset")))
            #expect(result.error != nil)
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("Reset.sse").path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            #expect(log.text.contains("record mode: the stream failed, so it was not recorded"), "\(log.text)")
        }
    }
}
