import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Against `websockets` (PyPI), a strict implementation, following the Autobahn|Testsuite's
/// sections: 1 framing (every length form), 2 pings and pongs, 5 fragmentation, 6 UTF-8, 7 the
/// close handshake, 9 large and many messages, 12 and 13 compression (context takeover, window
/// bits). `websockets` never writes what sections 3 (reserved bits) and 4 (reserved opcodes) send,
/// nor invalid UTF-8 or close codes: WebSocketBadInputTests has them from a frame-level server.
@Suite("WebSocket conformance", .sharing)
struct WebSocketConformanceTests {
    static let sizes = [0, 1, 125, 126, 127, 128, 65535, 65536, 65537, 1 << 20, 4 << 20]

    @Test("Text and binary messages of every length form echo back (Autobahn 1, 9, 12)", arguments: ["none", "deflate"])
    func echoEveryLength(compression: String) async throws {
        try await withWebSocketServer(compression: compression) { server in
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/echo"))
            #expect(socket.isCompressed == (compression == "deflate"))
            #expect(socket.response.statusCode == 101)
            for size in Self.sizes {
                let text = String(repeating: "é", count: size / 2) + (size % 2 == 1 ? "a" : "")
                try await socket.send(.text(text))
                let binary = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
                try await socket.send(.binary(binary))
            }
            var iterator = socket.makeAsyncIterator()
            for size in Self.sizes {
                let text = String(repeating: "é", count: size / 2) + (size % 2 == 1 ? "a" : "")
                #expect(try await iterator.next() == .text(text), "text of \(size) bytes")
                let binary = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
                #expect(try await iterator.next() == .binary(binary), "binary of \(size) bytes")
            }
            try await socket.close()
            #expect(socket.closeCode == .normalClosure)
        }
    }

    @Test("Fragmented messages both ways: the client's split at maximumFrameSize, the server's joined (Autobahn 5)")
    func fragmentation() async throws {
        try await withWebSocketServer(compression: "none") { server in
            let options = WebSocketOptions(compression: .none, maximumFrameSize: 10)
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/echo-fragmented?size=7", options: options))
            let text = String(repeating: "fragmenté ", count: 50)
            try await socket.send(.text(text))
            try await socket.send(.binary(Data(repeating: 9, count: 333)))
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .text(text))
            #expect(try await iterator.next() == .binary(Data(repeating: 9, count: 333)))
            try await socket.close()
        }
        // The frames the client wrote, as a frame-level server saw them.
        try await withWebSocketFramesServer { server in
            let id = connectionID()
            let options = WebSocketOptions(compression: .none, pingInterval: nil, maximumFrameSize: 100)
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/frames/idle?id=\(id)", options: options))
            try await socket.send(.text(String(repeating: "x", count: 250)))
            try await socket.close()
            let results = try await server.results(id)
            #expect(results.frames == [[0, 0, 1, 100], [0, 0, 0, 100], [1, 0, 0, 50]])
            #expect(results.unmasked == nil)
        }
    }

    @Test("The subprotocol is negotiated; one the server did not choose is nil")
    func subprotocol() async throws {
        try await withWebSocketServer { server in
            let net = makeManager()
            let socket = try await net.perform(SocketRequest(server.provider(), "/subprotocol", protocols: ["chat.v3", "chat.v2"]))
            #expect(socket.negotiatedProtocol == "chat.v2")
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .text("chat.v2"))
            try await socket.close()
            let none = try await net.perform(SocketRequest(server.provider(), "/subprotocol", protocols: ["other"]))
            #expect(none.negotiatedProtocol == nil)
            try await none.close()
            await #expect(throws: NetworkError.self) {
                try await net.perform(SocketRequest(server.provider(), "/subprotocol", protocols: ["not a token"]))
            }
        }
    }

    @Test("The handshake carries the provider's headers, credentials, cookies, interceptors' and middlewares' headers")
    func handshakeHeaders() async throws {
        try await withWebSocketServer { server in
            let net = makeManager()
            net.cookieStorage = .inMemory
            net.interceptors = [SigningInterceptor()]
            net.middlewares = [TraceHeaderMiddleware()]
            _ = try await net.perform(TestRequest<Data>(server.provider(), "/set-cookie"))
            let provider = AuthProvider(port: server.port, authentication: .bearer("token-123"), headers: ["X-App": "chat"])
            let socket = try await net.perform(SocketRequest(provider, "/headers"))
            var iterator = socket.makeAsyncIterator()
            guard case .text(let json)? = try await iterator.next() else { Issue.record("no headers"); return }
            let headers = try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
            #expect(headers["Authorization"] == "Bearer token-123")
            #expect(headers["X-App"] == "chat")
            #expect(headers["Cookie"] == "session=abc123")
            #expect(headers["X-Signature"] == "signed:GET")
            #expect(headers["traceparent"] == "00-trace-span-01", "\(headers.keys.sorted())")
            #expect(headers["Upgrade"] == "websocket")
            #expect(headers["Sec-WebSocket-Version"] == "13")
            #expect(headers["User-Agent"]?.hasPrefix("NetworkLayer/") == true)
            #expect(headers["Host"] == "127.0.0.1:\(server.port)")
            try await socket.close()
        }
    }

    @Test("A refused handshake is the usual error, with its status and body; a redirect is followed")
    func refusedAndRedirected() async throws {
        try await withWebSocketServer { server in
            let net = makeManager()
            do throws(NetworkError) {
                _ = try await net.perform(SocketRequest(server.provider(), "/reject"))
                Issue.record("a 403 opened a socket")
            } catch {
                guard case .unauthorizedAccess(let context) = error else { Issue.record("\(error)"); return }
                #expect(context.statusCode == 403)
                let body = String(decoding: context.response?.body ?? Data(), as: UTF8.self)
                #expect(body.contains("no entry for you"))
            }
            let socket = try await net.perform(SocketRequest(server.provider(), "/redirect"))
            try await socket.send(.text("after a redirect"))
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .text("after a redirect"))
            try await socket.close()
        }
    }

    @Test("The server's close ends the loop with its code and reason; the client's close reaches the server (Autobahn 7)")
    func closeHandshake() async throws {
        try await withWebSocketServer { server in
            let net = makeManager()
            let closed = try await net.perform(SocketRequest(server.provider(), "/close?code=4001&reason=over%20and%20out"))
            let (messages, error) = await drain(closed)
            #expect(messages.isEmpty && error == nil)
            #expect(closed.closeCode == WebSocketCloseCode(rawValue: 4001))
            #expect(closed.closeReason == "over and out")
            await #expect(throws: NetworkError.self) { try await closed.send(.text("too late")) }

            let id = connectionID()
            let socket = try await net.perform(SocketRequest(server.provider(), "/count?id=\(id)"))
            try await socket.send(.text("one"))
            try await socket.close(WebSocketCloseCode(rawValue: 4100), reason: "bye")
            #expect(socket.closeCode == WebSocketCloseCode(rawValue: 4100))
            #expect(try await server.closeCode(id) == 4100)
            let stats = try await server.stats(id)
            #expect(stats.reason == "bye" && stats.messages == 1)
            try await socket.close()  // again: nothing happens
            await #expect(throws: NetworkError.self) { try await socket.close(WebSocketCloseCode(rawValue: 1005)) }
            await #expect(throws: NetworkError.self) { try await socket.close(reason: String(repeating: "x", count: 124)) }
        }
    }

    @Test("A server's ping is answered with a pong (Autobahn 2)")
    func pongs() async throws {
        try await withWebSocketServer { server in
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/ping"))
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .text("pong received"))
            try await socket.close()
        }
    }

    @Test("Pings with 0, 1 and 125 bytes are answered with pongs carrying the same bytes (Autobahn 2)", arguments: [0, 1, 125])
    func pongPayloads(size: Int) async throws {
        try await withWebSocketServer { server in
            // websockets resolves its ping only on a pong with the same payload.
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/ping?size=\(size)"))
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .text("pong received"))
            try await socket.close()
            #expect(socket.closeCode == .normalClosure)
        }
    }

    /// Code points at every boundary of UTF-8's forms, a noncharacter, the last code point.
    static let utf8Boundaries = "\u{0}\u{7F}\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFD}\u{FFFF}\u{10000}\u{10FFFF} κόσμε 😀"

    @Test("Valid UTF-8 of every form, whole and split at every byte both ways (Autobahn 6)")
    func validUTF8() async throws {
        try await withWebSocketServer(compression: "none") { server in
            // One byte per frame each way: every code point split across fragments, which the
            // server validates as it joins ours and we validate as we join its.
            let options = WebSocketOptions(compression: .none, maximumFrameSize: 1)
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/echo-fragmented?size=1", options: options))
            try await socket.send(.text(Self.utf8Boundaries))
            try await socket.send(.text(""))
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .text(Self.utf8Boundaries))
            #expect(try await iterator.next() == .text(""))
            try await socket.close()
            #expect(socket.closeCode == .normalClosure)
        }
        try await withWebSocketServer(compression: "deflate") { server in
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/echo"))
            try await socket.send(.text(Self.utf8Boundaries))
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .text(Self.utf8Boundaries))
            try await socket.close()
        }
    }

    @Test("Every close code the RFC lets an endpoint send, both ways (Autobahn 7.7)",
          arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999])
    func closeCodes(code: Int) async throws {
        try await withWebSocketServer { server in
            let net = makeManager()
            let id = connectionID()
            let socket = try await net.perform(SocketRequest(server.provider(), "/count?id=\(id)"))
            try await socket.close(WebSocketCloseCode(rawValue: UInt16(code)), reason: "code \(code)")
            #expect(try await server.closeCode(id) == code)
            #expect(try await server.stats(id).reason == "code \(code)")

            let closed = try await net.perform(SocketRequest(server.provider(), "/close?code=\(code)&reason=from%20the%20server"))
            let (messages, error) = await drain(closed)
            #expect(messages.isEmpty && error == nil, "\(String(describing: error))")
            #expect(closed.closeCode?.rawValue == UInt16(code))
            #expect(closed.closeReason == "from the server")
        }
    }

    @Test("Ten thousand messages of every small size, sent back to back, echo in order (Autobahn 9.7, 9.8)", arguments: ["none", "deflate"])
    func manyMessagesInOrder(compression: String) async throws {
        try await withWebSocketServer(compression: compression) { server in
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/echo"))
            let messages: [WebSocketMessage] = (0..<10_000).map { index in
                index % 3 == 0 ? .binary(Data((0..<(index % 301)).map { UInt8(truncatingIfNeeded: $0 &+ index) }))
                    : .text("\(index) " + String(repeating: "ü", count: index % 97))
            }
            let sender = Task { for message in messages { try await socket.send(message) } }
            var received = 0
            for try await message in socket {
                guard message == messages[received] else {
                    Issue.record("message \(received) is \(message), not \(messages[received])")
                    break
                }
                received += 1
                if received == messages.count { break }
            }
            try await sender.value
            #expect(received == messages.count)
            try await socket.close()
            #expect(socket.closeCode == .normalClosure)
        }
    }

    @Test("Pings go out every pingInterval and the server's pongs keep the socket open", .measuring)
    func pingsKeepAlive() async throws {
        try await withWebSocketFramesServer { server in
            let id = connectionID()
            let options = WebSocketOptions(pingInterval: .milliseconds(250))
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/frames/idle?id=\(id)", options: options))
            try await Task.sleep(for: .milliseconds(1100))
            #expect(socket.closeCode == nil)
            try await socket.close()
            #expect((try await server.results(id).pings ?? 0) >= 3)
        }
    }

    @Test("Compression with context takeover, without it, and with 10-bit windows (Autobahn 12, 13)",
          arguments: ["deflate", "deflate-no-context", "deflate-window-10"])
    func compression(variant: String) async throws {
        try await withWebSocketServer(compression: variant) { server in
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/echo"))
            #expect(socket.isCompressed)
            let messages: [WebSocketMessage] = (0..<20).map { index in
                index % 2 == 0 ? .text(String(repeating: "compress me \(index) ", count: 200 * index + 1))
                    : .binary(Data((0..<(5000 * index)).map { UInt8(truncatingIfNeeded: $0 % 97) }))
            }
            for message in messages { try await socket.send(message) }
            var iterator = socket.makeAsyncIterator()
            for message in messages { #expect(try await iterator.next() == message) }
            try await socket.close()
            #expect(socket.closeCode == .normalClosure)
        }
    }

    @Test("A message over maximumMessageSize fails the socket with 1009, and the server hears 1009")
    func messageTooBig() async throws {
        try await withWebSocketServer { server in
            let id = connectionID()
            let options = WebSocketOptions(maximumMessageSize: 1 << 20)
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/echo?id=\(id)", options: options))
            try await socket.send(.binary(Data(count: 2 << 20)))
            let (messages, error) = await drain(socket)
            #expect(messages.isEmpty)
            #expect(error != nil)
            #expect(socket.closeCode == .messageTooBig)
            #expect(try await server.closeCode(id) == 1009)
        }
    }

    @Test("Cancelling the reading task closes the socket with 1001 promptly", .measuring)
    func cancellationClosesWith1001() async throws {
        try await withWebSocketServer { server in
            let id = connectionID()
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/count?id=\(id)"))
            let reader = Task { await drain(socket) }
            try await Task.sleep(for: .milliseconds(100))
            let cancelled = ContinuousClock.now
            reader.cancel()
            let (_, error) = await reader.value
            guard case .cancelled? = error else { Issue.record("ended with \(String(describing: error))"); return }
            #expect(try await server.closeCode(id) == 1001)
            #expect(ContinuousClock.now - cancelled < .seconds(1))
        }
    }

    @Test("send waits while the server does not read: what is queued stays bounded", .measuring)
    func sendBackpressure() async throws {
        try await withWebSocketFramesServer { server in
            let options = WebSocketOptions(compression: .none, pingInterval: nil)
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/frames/sink?id=\(connectionID())", options: options))
            let sent = Counter()
            let sender = Task {
                let chunk = WebSocketMessage.binary(Data(count: 64 << 10))
                for _ in 0..<4096 {  // 256 MB, far more than the kernel's buffers and the queue hold
                    try await socket.send(chunk)
                    sent.increment()
                }
            }
            try await Task.sleep(for: .seconds(1.5))
            let queued = sent.value
            try await Task.sleep(for: .milliseconds(500))
            // The kernel's buffers on loopback (a few MB each way) and the 1 MB queue, then nothing.
            #expect(queued < 512, "\(queued) messages of 64 KB were queued to a server that reads nothing")
            #expect(sent.value - queued < 8, "send went on: \(queued) then \(sent.value) messages")
            sender.cancel()
        }
    }
}

/// Adds a header around the whole call, as a tracing middleware would.
struct TraceHeaderMiddleware: RequestMiddleware {
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        var request = request
        request.setHeader("traceparent", "00-trace-span-01")
        return try await next(request)
    }
}

/// Adds a header computed from the request, as a signing interceptor would.
struct SigningInterceptor: RequestInterceptor {
    func adapt(_ request: inout OutgoingRequest) async throws {
        request.setHeader("X-Signature", "signed:\(request.method.rawValue)")
    }
}
