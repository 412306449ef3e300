import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Record mode writes a live WebSocket session as a `.ws` script, which mock mode replays.
@Suite("WebSocket recording", .sharing)
struct WebSocketRecordingTests {
    static let token = "s3cr3t-token-42"
    static let apiKey = "k3y-in-the-query"

    /// What the client does in both runs: the messages it received, in order, and how it closed.
    static func session(_ net: NetworkManager, _ provider: TestProvider) async throws
        -> (messages: [WebSocketMessage], code: WebSocketCloseCode?, reason: String?, error: NetworkError?) {
        let request = SocketRequest(provider, "/record?api_key=\(apiKey)")
        request.mockedResponseFilename = "Session"
        let socket = try await net.perform(request)
        var iterator = socket.makeAsyncIterator()
        var messages: [WebSocketMessage] = []
        if let welcome = try await iterator.next() { messages.append(welcome) }
        for message: WebSocketMessage in [.text("one"), .binary(Data([0, 1, 2, 255])), .text("two\nlines\r\n  "), .text("*"),
                                          .text("# not a comment"), .text("later")] {
            try await socket.send(message)
            if let answer = try await iterator.next() { messages.append(answer) }
        }
        try await socket.send(.text("bye"))
        let (rest, error) = await drain(socket)
        return (messages + rest, socket.closeCode, socket.closeReason, error)
    }

    @Test("A recorded session replays: the same messages in order, the client's expected, the server's close, the pause")
    func recordsAndReplays() async throws {
        let directory = try MockDirectory()
        defer { directory.remove() }
        try await withWebSocketServer { server in
            let provider = server.provider(headers: ["Authorization": "Bearer \(Self.token)"])
            let recorder = makeManager()
            recorder.mockRecordingDirectory = directory.url
            let live = try await Self.session(recorder, provider)
            #expect(live.error == nil)
            #expect(live.code == WebSocketCloseCode(rawValue: 4001) && live.reason == "see you")
            #expect(live.messages.count == 7)

            let file = directory.url.appendingPathComponent("Session.ws")
            let script = try String(contentsOf: file, encoding: .utf8)
            #expect(script.hasPrefix("# Recorded from GET http://127.0.0.1:\(server.port)/record?api_key=<redacted> on "))
            // Pauses depend on the machine's load: the steps are compared without them.
            let lines = script.split(separator: "\n")
            let steps = lines.filter { !$0.hasPrefix("~ ") }.dropFirst().joined(separator: "\n")
            #expect(steps == """
                < welcome <redacted> <redacted>
                > one
                < one
                >b AAEC/w==
                <b AAEC/w==
                >j "two\\nlines\\r\\n  "
                <j "two\\nlines\\r\\n  "
                >j "*"
                < *
                > # not a comment
                < # not a comment
                > later
                < late
                > bye
                close 4001 see you
                """)
            let pause = lines.firstIndex(of: "< late").map { lines[$0 - 1] }.flatMap { $0.hasPrefix("~ ") ? Double($0.dropFirst(2)) : nil }
            #expect(pause.map { $0 >= 0.15 && $0 <= 5 } == true, "\(script)")

            let player = makeManager(mocks: directory.url)
            let replayed = try await Self.session(player, provider)
            #expect(replayed.error == nil)
            #expect(replayed.code == live.code && replayed.reason == live.reason)
            #expect(replayed.messages.dropFirst() == live.messages.dropFirst())
            #expect(replayed.messages.first == .text("welcome <redacted> <redacted>"))
            #expect(player.mocks.webSocketMessages.filter(\.isSent).count == 7)
        }
    }

    @Test("Secret values of the request a server echoes are written <redacted>")
    func scrubsSecrets() async throws {
        let directory = try MockDirectory()
        defer { directory.remove() }
        try await withWebSocketServer { server in
            let net = makeManager()
            net.mockRecordingDirectory = directory.url
            let live = try await Self.session(net, server.provider(headers: ["Authorization": "Bearer \(Self.token)"]))
            #expect(live.messages.first == .text("welcome Bearer \(Self.token) \(Self.apiKey)"))
            let script = try String(contentsOf: directory.url.appendingPathComponent("Session.ws"), encoding: .utf8)
            #expect(!script.contains(Self.token) && !script.contains(Self.apiKey), "\(script)")
            #expect(script.contains("\n< welcome <redacted> <redacted>\n"), "\(script)")
        }
    }

    @Test("A session the server breaks off (no close frame) leaves no file, and no temporary one")
    func failedSessionIsNotRecorded() async throws {
        let directory = try MockDirectory()
        defer { directory.remove() }
        try await withWebSocketServer { server in
            let net = makeManager()
            net.mockRecordingDirectory = directory.url
            let request = SocketRequest(server.provider(), "/record")
            request.mockedResponseFilename = "Session"
            let socket = try await net.perform(request)
            var iterator = socket.makeAsyncIterator()
            _ = try await iterator.next()
            try await socket.send(.text("drop"))
            _ = await drain(socket)
            #expect(socket.closeCode == .abnormalClosure)
            let entries = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            #expect(entries.isEmpty, "\(entries)")
        }
    }

    @Test("A socket let go of before any message leaves the mock already there as it was")
    func unusedSocketKeepsTheMock() async throws {
        let directory = try MockDirectory()
        defer { directory.remove() }
        try directory.write("Session", fileExtension: "ws", body: "< hand-written\n")
        try await withWebSocketServer { server in
            let net = makeManager()
            net.mockRecordingDirectory = directory.url
            let request = SocketRequest(server.provider(), "/record")
            request.mockedResponseFilename = "Session"
            _ = try await net.perform(request)
            let entries = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            #expect(entries == ["Session.ws"], "\(entries)")
            #expect(try String(contentsOf: directory.url.appendingPathComponent("Session.ws"), encoding: .utf8) == "< hand-written\n")
        }
    }

    @Test("A message over 16 MiB is left out of the recording, a comment saying so; a sent one is expected as any message")
    func oversizedMessagesAreLeftOut() async throws {
        let directory = try MockDirectory()
        defer { directory.remove() }
        try await withWebSocketServer(compression: "none") { server in
            let net = makeManager()
            net.mockRecordingDirectory = directory.url
            let request = SocketRequest(server.provider(), "/echo", options: WebSocketOptions(maximumMessageSize: 32 << 20))
            request.mockedResponseFilename = "Large"
            let socket = try await net.perform(request)
            let large = Data(count: RecordingWebSocketChannel.maximumMessageSize + 1)
            try await socket.send(.binary(large))
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .binary(large))
            try await socket.close(.normalClosure, reason: "done")
            let script = try String(contentsOf: directory.url.appendingPathComponent("Large.ws"), encoding: .utf8)
            let steps = script.split(separator: "\n").filter { !$0.hasPrefix("~ ") }.dropFirst()
            let leftOut = "# a message of \(large.count) bytes was left out: the recorder keeps messages up to \(large.count - 1) bytes"
            #expect(Array(steps) == [Substring(leftOut), "> *", Substring(leftOut), "close 1000 done"], "\(script)")
        }
    }

    @Test("A script with a 16 MiB binary message plays it; a file over the limit fails perform, naming it")
    func largeMessages() async throws {
        let directory = try MockDirectory()
        defer { directory.remove() }
        let payload = Data((0..<(16 << 20)).lazy.map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try directory.write("Large", fileExtension: "ws", body: "<b \(payload.base64EncodedString())\nclose 1000 done\n")
        let net = makeManager(mocks: directory.url)
        let request = SocketRequest(WebSocketMockTests.provider, "/large")
        request.mockedResponseFilename = "Large"
        let (messages, error) = await drain(try await net.perform(request))
        #expect(error == nil)
        #expect(messages.count == 1 && messages.first == .binary(payload))

        let huge = directory.url.appendingPathComponent("Huge.ws")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: nil))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: UInt64(WebSocketScript.maximumFileSize) + 1)
        try handle.close()
        request.mockedResponseFilename = "Huge"
        await #expect {
            _ = try await net.perform(request)
        } throws: { error in
            guard case NetworkError.invalidRequest(let context) = error else { return false }
            return context.reason?.contains("Huge.ws") == true && context.reason?.contains("over \(WebSocketScript.maximumFileSize) bytes") == true
        }
    }

    @Test("Any text is written as a step that reads back as itself; hand-written steps keep their meaning, CRLF line ends too")
    func textStepsReadBack() throws {
        let texts = ["", " ", "plain", " leading", "trailing ", "two\nlines", "cr\r", "\r\n", "tab\there", "nul\0", "*", "# hash",
                     "\u{2028}sep", "é\u{301}", "\u{301}mark first", "\u{200D}joiner", "\"quoted\"", "back\\slash", "emoji 🙂", "<j \"x\""]
        for text in texts {
            for prefix in ["<", ">"] {
                let line = RecordingWebSocketChannel.line(prefix, text: text)
                #expect(!line.contains("\n") && !line.contains("\r"), "\(line)")
                let script = try WebSocketScript(parsing: Data(line.utf8), name: "t.ws", request: "GET /")
                let expected: WebSocketScript.Step = prefix == "<" ? .receive(.text(text)) : .expect(.text(text))
                #expect(script.steps.map { $0.step } == [expected], "\(text.debugDescription) → \(line)")
            }
        }
        let handWritten = try WebSocketScript(parsing: Data("< a\n> *\n>  b \n<j \"c\\nd\"\n".utf8), name: "t.ws", request: "GET /")
        #expect(handWritten.steps.map { $0.step } == [.receive(.text("a")), .expect(nil), .expect(.text(" b ")), .receive(.text("c\nd"))])
        let crlf = try WebSocketScript(parsing: Data("# edited on Windows\r\n< a\r\n> b\r\nclose 4000 done\r\n".utf8), name: "t.ws", request: "GET /")
        #expect(crlf.steps.map { $0.step } == [.receive(.text("a")), .expect(.text("b")), .close(WebSocketCloseCode(rawValue: 4000), "done")])
    }
}
