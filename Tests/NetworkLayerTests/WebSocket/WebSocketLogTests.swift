import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The log of a WebSocket, against a real server: the socket (its ws:// URL, what it offered and
/// what was accepted, no curl command), one line per message, and how it ended (who closed, the
/// code, the reason escaped).
@Suite("WebSocket log", .sharing)
struct WebSocketLogTests {
    @Test("Messages are logged one per line with their size; the request's secrets never appear; control characters are escaped")
    func messagesLogged() async throws {
        try await withWebSocketServer { server in
            let log = LogCollector()
            let net = makeManager(log: log)
            let provider = AuthProvider(port: server.port, authentication: .bearer("s3cret-token-value"))
            let socket = try await net.perform(SocketRequest(provider, "/headers"))
            var iterator = socket.makeAsyncIterator()
            _ = try await iterator.next()  // the headers, the token among them
            try await socket.send(.text("hello"))
            try await socket.send(.text("\u{1B}[31mred"))
            try await socket.send(.binary(Data(count: 3)))
            _ = try await iterator.next()
            try await socket.close(reason: "bye")
            let text = log.text
            #expect(text.contains("Upgrade: websocket"))
            #expect(text.contains("← 101"))
            #expect(text.contains("↑ text 5 bytes: hello"))
            #expect(text.contains("↑ binary 3 bytes"))
            #expect(text.contains("↓ text"))
            #expect(text.contains(#"WebSocket closed by the client with 1000 (normal closure), reason "bye""#), "\(text)")
            #expect(!text.contains("s3cret-token-value"))
            #expect(!text.contains("\u{1B}"))
        }
    }

    @Test("A message is logged when it arrives, before a close that follows it, even when the loop reads it after the close")
    func messagesLoggedAsTheyArrive() async throws {
        try await withWebSocketServer { server in
            let log = LogCollector()
            let socket = try await makeManager(log: log).perform(SocketRequest(server.provider(), "/echo"))
            try await socket.send(.text("first"))
            try await socket.send(.text("second"))
            #expect(await logged("↓ text 6 bytes: second", in: log), "the echo arrived, unread: \(log.text)")
            try await socket.close()
            let (messages, error) = await drain(socket)
            #expect(messages == [.text("first"), .text("second")] && error == nil)
            let text = log.text
            // Each echo after what it echoes, both before the close (an echo may arrive before the next send).
            for order in [["↑ text 5 bytes: first", "↓ text 5 bytes: first"], ["↑ text 6 bytes: second", "↓ text 6 bytes: second"],
                          ["↓ text 5 bytes: first", "↓ text 6 bytes: second", "WebSocket closed by the client with 1000 (normal closure)"]] {
                let positions = order.compactMap { text.range(of: $0)?.lowerBound }
                #expect(positions.count == order.count && positions == positions.sorted(), "\(order) in \(text)")
            }
        }
    }

    @Test("The handshake is logged as the socket: its ws:// URL redacted, what it offered and what was accepted, no curl command, no tls on a plain connection")
    func handshakeLoggedAsASocket() async throws {
        try await withWebSocketServer { server in
            let log = LogCollector()
            let socket = try await makeManager(log: log).perform(SocketRequest(server.provider(), "/subprotocol?token=s3cret-query-value",
                                                                               protocols: ["chat.v3", "chat.v2"]))
            var iterator = socket.makeAsyncIterator()
            _ = try await iterator.next()
            try await socket.close()
            let text = log.text
            let url = "ws://127.0.0.1:\(server.port)/subprotocol?token=\(Redactor.placeholder)"
            #expect(text.contains("→ WebSocket \(url)\n"), "\(text)")
            #expect(text.contains("offers subprotocols chat.v3, chat.v2, extension permessage-deflate"), "\(text)")
            #expect(text.contains("← 101 WebSocket \(url) in "), "\(text)")
            #expect(text.contains("accepted subprotocol chat.v2, extension permessage-deflate"), "\(text)")
            #expect(!text.contains("$ curl"), "a curl command cannot open a socket: \(text)")
            #expect(!text.contains("s3cret-query-value"))
            let timing = try #require(timingLine(in: text), "\(text)")
            #expect(timing.contains("connect "))
            #expect(!timing.contains("tls"), "a ws:// socket has no TLS: \(timing)")
        }
    }

    @Test("A wss:// socket's timing line shows its TLS time")
    func secureSocketShowsTLSTime() async throws {
        try await withWebSocketServer(tls: ("localhost-chain.pem", "localhost.key")) { server in
            let log = LogCollector()
            let net = makeManager(log: log)
            net.customCABundle = certificatesDirectory.appendingPathComponent("TestCABundle.pem")
            let socket = try await net.perform(SocketRequest(server.provider(scheme: .https, host: "localhost"), "/echo"))
            try await socket.close()
            let text = log.text
            #expect(text.contains("→ WebSocket wss://localhost:\(server.port)/echo"), "\(text)")
            let timing = try #require(timingLine(in: text), "\(text)")
            #expect(timing.contains(", tls "), "\(timing)")
        }
    }

    @Test("The server's close is logged as the server's, with its code and its reason quoted and escaped")
    func serverCloseLogged() async throws {
        try await withWebSocketServer { server in
            let log = LogCollector()
            let socket = try await makeManager(log: log).perform(SocketRequest(server.provider(),
                                                                               "/close?status=4001&reason=over%20%22and%22%20out%5C%1B%5B31m"))
            let (messages, error) = await drain(socket)
            #expect(messages.isEmpty && error == nil)
            let line = #"WebSocket closed by the server with 4001, reason "over \"and\" out\\\u{1B}[31m""#
            #expect(log.text.contains(line), "\(log.text)")
            #expect(!log.text.contains("\u{1B}"))
            // The server closed at once, before the handshake's answer was logged: its line still comes after.
            let opened = try #require(log.text.range(of: "← 101 WebSocket"))
            #expect(log.text.range(of: line).map { $0.lowerBound > opened.lowerBound } == true, "\(log.text)")
        }
    }

    @Test("A socket closed by dropping it, or by cancelling its reader, is logged as closed by the client with 1001 and why")
    func clientSideGoingAwayLogged() async throws {
        try await withWebSocketServer { server in
            let log = LogCollector()
            let net = makeManager(log: log)
            let id = connectionID()
            _ = try await net.perform(SocketRequest(server.provider(), "/echo?id=\(id)"))
            #expect(try await server.closeCode(id) == 1001)
            #expect(await logged("WebSocket closed by the client with 1001 (going away): its last reference was dropped", in: log), "\(log.text)")

            let socket = try await net.perform(SocketRequest(server.provider(), "/echo"))
            let reader = Task { await drain(socket) }
            try await Task.sleep(for: .milliseconds(50))
            reader.cancel()
            _ = await reader.value
            #expect(await logged("WebSocket closed by the client with 1001 (going away): the task reading it was cancelled", in: log),
                    "\(log.text)")
        }
    }

    @Test("Copy-as-curl renders the handshake's upgrade headers")
    func curlCommand() async throws {
        let command = try await makeManager().curlCommand(for: SocketRequest(TestProvider(host: "chat.example.com", httpScheme: .https, port: nil),
                                                                           "/ws", protocols: ["chat.v2"]))
        #expect(command.contains("Upgrade: websocket"))
        #expect(command.contains("Sec-WebSocket-Protocol: chat.v2"))
        #expect(command.contains("Sec-WebSocket-Version: 13"))
    }
}

/// The response's timing line of a text log (`HTTP/1.1 from 127.0.0.1: dns 0 ms, connect 1 ms, …`).
func timingLine(in text: String) -> String? {
    text.split(separator: "\n").first { $0.contains(" from ") && $0.contains(": dns ") }.map(String.init)
}

/// Whether `line` is in the log within two seconds: the socket's thread writes how it ended.
func logged(_ line: String, in log: LogCollector) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(2)
    while !log.text.contains(line) {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return true
}
