import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A socket nobody holds any more closes itself: the server gets 1001 (going away), and the
/// socket's file descriptors are gone soon after, and no thread is left behind.
// .measuring: the verdict counts the whole process's threads and file descriptors, which the
// tests running beside it would change.
@Suite("WebSocket lifetime: dropping the last reference closes the socket", .measuring)
struct WebSocketLifetimeTests {
    static let sockets = 20

    @Test("Sockets dropped right after they opened close with 1001, give back their descriptors and leave no thread behind")
    func droppedAfterOpening() async throws {
        try await withWebSocketServer { server in
            try await Self.expectDroppedSocketsClose(on: server) { _ in }
        }
    }

    @Test("Sockets dropped after `for try await _ in socket { break }` close with 1001, give back their descriptors and leave no thread behind")
    func droppedAfterBreakingOutOfTheLoop() async throws {
        try await withWebSocketServer { server in
            try await Self.expectDroppedSocketsClose(on: server) { socket in
                try await socket.send(.text("hello"))
                for try await _ in socket { break }
            }
        }
    }

    @Test("Open sockets add no thread to the process: the engine's thread drives them all")
    func openSocketsAddNoThreads() async throws {
        try await withWebSocketServer { server in
            let net = makeManager()
            // What starts once per process (the engine, the runtime's threads) starts before counting.
            let warmUp = try await net.perform(SocketRequest(server.provider(), "/echo"))
            try await warmUp.send(.text("warm-up"))
            var warmUpMessages = warmUp.makeAsyncIterator()
            _ = try await warmUpMessages.next()
            try await warmUp.close()
            try await Task.sleep(for: .milliseconds(50))
            let before = ProcessCounts.threads
            var open: [WebSocket] = []
            for index in 0..<Self.sockets {
                let socket = try await net.perform(SocketRequest(server.provider(), "/echo"))
                try await socket.send(.text("hello \(index)"))
                var messages = socket.makeAsyncIterator()
                #expect(try await messages.next() == .text("hello \(index)"))
                open.append(socket)
            }
            let during = ProcessCounts.threads
            for socket in open { try await socket.close() }
            // A thread per socket would add `sockets`; the runtime may add one or two of its own.
            #expect(during - before < Self.sockets, "threads: \(before) before, \(during) with \(Self.sockets) sockets open")
            #expect(during - before <= 2, "threads: \(before) before, \(during) with \(Self.sockets) sockets open")
        }
    }

    /// Opens ``sockets`` sockets to `/echo`, runs `use` on each and drops it; then the process's
    /// threads and descriptors must come back to what they were within two seconds, and the
    /// server must have received 1001 from each.
    static func expectDroppedSocketsClose(on server: WebSocketServer, use: (WebSocket) async throws -> Void) async throws {
        let net = makeManager()
        // What starts once per process (the engine, the runtime's threads) starts before counting.
        let warmUp = try await net.perform(SocketRequest(server.provider(), "/echo"))
        try await warmUp.close()
        try await Task.sleep(for: .milliseconds(50))
        let before = (threads: ProcessCounts.threads, descriptors: ProcessCounts.descriptors)

        var ids: [String] = []
        for _ in 0..<sockets {
            let id = connectionID()
            ids.append(id)
            try await use(try await net.perform(SocketRequest(server.provider(), "/echo?id=\(id)")))
        }
        let dropped = ContinuousClock.now
        var after = (threads: ProcessCounts.threads, descriptors: ProcessCounts.descriptors)
        while after.threads > before.threads || after.descriptors > before.descriptors, ContinuousClock.now - dropped < .seconds(2) {
            try await Task.sleep(for: .milliseconds(20))
            after = (ProcessCounts.threads, ProcessCounts.descriptors)
        }
        #expect(after.threads <= before.threads, "threads: \(before.threads) before, \(after.threads) two seconds after dropping \(sockets) sockets")
        #expect(after.descriptors <= before.descriptors,
                "file descriptors: \(before.descriptors) before, \(after.descriptors) two seconds after dropping \(sockets) sockets")
        guard after.threads <= before.threads else { return }  // nothing closed: the server has nothing to say
        for id in ids {
            #expect(try await server.closeCode(id, within: .seconds(2)) == 1001, "connection \(id)")
        }
    }
}

/// What the process holds, from /proc/self.
enum ProcessCounts {
    static var threads: Int { entries(of: "/proc/self/task") }
    static var descriptors: Int { entries(of: "/proc/self/fd") }

    private static func entries(of directory: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? 0
    }
}
