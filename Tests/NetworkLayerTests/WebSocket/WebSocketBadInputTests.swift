import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A frame-level server of our own writes what no correct server would; each case ends in an
/// error with the RFC's close code, sent to the server, and nothing traps.
@Suite("WebSocket bad input", .sharing)
struct WebSocketBadInputTests {
    @Test("Each bad frame fails the socket with its close code, which the server receives", arguments: [
        ("rsv2", 1002), ("rsv1-uncompressed", 1002), ("opcode3", 1002), ("opcode11", 1002), ("masked", 1002),
        ("ping-fragmented", 1002), ("ping-126", 1002), ("continuation-first", 1002), ("utf8-invalid", 1007),
        ("utf8-invalid-first-fragment", 1007), ("length-2-63", 1009), ("too-big", 1009), ("bomb", 1009),
        ("close-1005", 1002), ("close-1006", 1002), ("close-1004", 1002), ("close-1015", 1002), ("close-999", 1002),
        ("close-5000", 1002), ("close-bad-reason", 1007), ("close-1-byte", 1002),
    ])
    func badFrame(_ scenario: String, _ code: Int) async throws {
        try await withWebSocketFramesServer { server in
            let id = connectionID()
            // Compression offered only where the scenario needs it: without it, RSV1 is a protocol error.
            let compression: WebSocketOptions.Compression = scenario == "bomb" ? .permessageDeflate : .none
            let options = WebSocketOptions(maximumMessageSize: 1 << 20, compression: compression, pingInterval: nil)
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/frames/\(scenario)?id=\(id)", options: options))
            let (messages, error) = await drain(socket)
            #expect(messages.isEmpty)
            guard case .transport(let context)? = error else { Issue.record("\(scenario) ended with \(String(describing: error))"); return }
            #expect(context.reason?.contains("\(code)") == true, "\(context.reason ?? "")")
            #expect(socket.closeCode?.rawValue == UInt16(code))
            #expect(try await server.closeCode(id) == code, "the server did not receive close \(code) for \(scenario)")
        }
    }

    @Test("A close with an application code ends the loop normally, and is echoed")
    func applicationClose() async throws {
        try await withWebSocketFramesServer { server in
            let id = connectionID()
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/frames/close-4001?id=\(id)"))
            let (messages, error) = await drain(socket)
            #expect(messages.isEmpty && error == nil)
            #expect(socket.closeCode?.rawValue == 4001 && socket.closeReason == "custom")
            #expect(try await server.closeCode(id) == 4001)
        }
    }

    @Test("UTF-8 split across fragments with a ping between them makes one message; the ping is answered")
    func splitUTF8WithPing() async throws {
        try await withWebSocketFramesServer { server in
            let id = connectionID()
            let options = WebSocketOptions(pingInterval: nil)
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/frames/split-utf8-with-ping?id=\(id)", options: options))
            let (messages, error) = await drain(socket)
            #expect(messages == [.text("caf€!")])
            #expect(error == nil, "\(String(describing: error))")
            // The loop ends when the server's close arrives, before the pong is written: the
            // client's close answer goes after the pong, so once the server has it the pong is counted.
            #expect(try await server.closeCode(id) == 1000)
            #expect(try await server.results(id).pongs == 1)
        }
    }

    @Test("A compressed message in fragments inflates whole")
    func compressedFragments() async throws {
        try await withWebSocketFramesServer { server in
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/frames/compressed-fragments?id=\(connectionID())"))
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .text(String(repeating: "Hello, ", count: 100)))
            try await socket.close()
        }
    }

    @Test("A connection that ends without a close frame fails the loop with 1006")
    func noCloseFrame() async throws {
        try await withWebSocketFramesServer { server in
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/frames/no-close-frame?id=\(connectionID())"))
            let (messages, error) = await drain(socket)
            #expect(messages == [.text("bye")])
            guard case .transport? = error else { Issue.record("\(String(describing: error))"); return }
            #expect(socket.closeCode == .abnormalClosure)
        }
    }

    @Test("A server that never answers the close is closed after closeTimeout", .measuring)
    func unansweredClose() async throws {
        try await withWebSocketFramesServer { server in
            let id = connectionID()
            let options = WebSocketOptions(pingInterval: nil, closeTimeout: .milliseconds(300))
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/frames/noclose?id=\(id)", options: options))
            let started = ContinuousClock.now
            try await socket.close(.normalClosure, reason: "bye")
            let elapsed = ContinuousClock.now - started
            #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(2))
            #expect(socket.closeCode == .abnormalClosure)
            #expect(try await server.closeCode(id) == 1000)
        }
    }

    @Test("A ping interval and a close timeout too long for the clock are enforced as about 31 years, never a trap; below zero, as none and as zero")
    func hugeDurations() async throws {
        // About the longest Duration there is (1.7 × 10²⁰ s): the clock's now plus it overflows.
        let longest = Duration.seconds(1.7014118346046923e20.nextDown)
        let huge = WebSocketOptions(pingInterval: longest, closeTimeout: longest)
        #expect(huge.pingLimit == WebSocketOptions.longestWait && huge.closeLimit == WebSocketOptions.longestWait)
        let negative = WebSocketOptions(pingInterval: .seconds(-1), closeTimeout: .seconds(-1))
        #expect(negative.pingLimit == nil && negative.closeLimit == .zero)
        try await withWebSocketServer { server in
            // Before they were enforced, the first ping's time (at the open) and the close's
            // deadline were the clock plus the caller's value: an overflow, which traps.
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/echo", options: huge))
            try await socket.send(.text("still here"))
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .text("still here"))
            try await socket.close()
            #expect(socket.closeCode == .normalClosure)
        }
    }

    @Test("A missing pong fails the socket with timeOut", .measuring)
    func missingPong() async throws {
        try await withWebSocketFramesServer { server in
            let options = WebSocketOptions(pingInterval: .milliseconds(200))
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/frames/nopong?id=\(connectionID())", options: options))
            let started = ContinuousClock.now
            let (_, error) = await drain(socket)
            guard case .timeOut? = error else { Issue.record("\(String(describing: error))"); return }
            #expect(ContinuousClock.now - started < .seconds(2))
        }
    }

    @Test("The reader stops reading while its messages are not taken: what the server can write stays bounded", .measuring)
    func readBackpressure() async throws {
        try await withWebSocketFramesServer { server in
            let id = connectionID()
            let options = WebSocketOptions(compression: .none, pingInterval: nil)
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/frames/flood?id=\(id)", options: options))
            try await Task.sleep(for: .seconds(3.5))  // the server writes for 3 s, as fast as it can
            let results = try await server.results(id)
            let written = results.written ?? 0
            // What the kernel may hold between the two sockets depends on the machine (tcp_rmem and
            // tcp_wmem), so the bound does too; and whatever it holds, a client that stopped reading
            // leaves the server unable to write for the end of its 3 s.
            let bound = kernelSocketBuffers() + 8 << 20
            #expect(written < bound, "the server wrote \(written) bytes to a client that read nothing (bound \(bound))")
            #expect((results.stalled ?? 0) >= 1, "the server could write until \(results.stalled ?? 0) s before its end")
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .binary(Data(repeating: UInt8(ascii: "x"), count: 65536)))
            try? await socket.close()
        }
    }

    @Test("A handshake that does not answer, is not HTTP, or answers wrongly fails perform", arguments: [
        ("/slow-handshake", "timeOut"), ("/garbage", "transport"), ("/bad-accept", "transport"),
        ("/bad-subprotocol", "transport"), ("/bad-extension", "transport"), ("/reject", "unauthorizedAccess"),
    ])
    func badHandshake(_ path: String, _ kind: String) async throws {
        try await withWebSocketFramesServer { server in
            do {
                _ = try await makeManager().perform(SocketRequest(server.provider(), path, timeout: 1))
                Issue.record("\(path) opened a socket")
            } catch {
                #expect((error as? NetworkError)?.code == kind, "\(path): \(error)")
            }
        }
    }
}

/// The most a loopback connection's kernel buffers can hold: the receiver's largest receive buffer
/// and the sender's largest send buffer (the third field of tcp_rmem and tcp_wmem), 32 MB if unread.
private func kernelSocketBuffers() -> Int {
    func maximum(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/\(name)", encoding: .utf8) else { return nil }
        return text.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) }
    }
    return (maximum("tcp_rmem") ?? 16 << 20) + (maximum("tcp_wmem") ?? 16 << 20)
}
