import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A close reason over 123 bytes of UTF-8 cannot be sent (RFC 6455 §5.5): `close` says so, sends
/// nothing, and leaves the socket open, so that it can still be closed.
@Suite("WebSocket close reasons over 123 bytes", .sharing)
struct WebSocketCloseReasonTests {
    /// 124 bytes of UTF-8 in 62 characters.
    static let tooLong = String(repeating: "é", count: 62)

    @Test("close with a reason over 123 bytes throws an error saying so; the socket stays open, and close with a valid reason closes it")
    func tooLongReasonIsRefusedAndTheSocketStillCloses() async throws {
        try await withWebSocketServer { server in
            let id = connectionID()
            let socket = try await makeManager().perform(SocketRequest(server.provider(), "/count?id=\(id)"))
            do throws(NetworkError) {
                try await socket.close(reason: Self.tooLong)
                Issue.record("a 124-byte close reason was accepted")
            } catch {
                guard case .invalidRequest = error else { Issue.record("\(error)"); return }
                let description = error.errorDescription ?? ""
                #expect(description.hasPrefix("The WebSocket was not closed: the close reason is too long: 124 bytes of UTF-8"), "\(description)")
                #expect(description.contains("at most 123"), "\(description)")
                #expect(!description.contains("could not be built"), "\(description)")
                #expect(error.recoverySuggestion?.contains("still open") == true, "\(error.recoverySuggestion ?? "")")
            }
            #expect(socket.closeCode == nil)
            try await socket.send(.text("still open"))
            try await socket.close(reason: String(repeating: "é", count: 61) + "a")  // 123 bytes: the most there is room for
            #expect(try await server.closeCode(id) == 1000)
            let stats = try await server.stats(id)
            #expect(stats.messages == 1)
            #expect(stats.reason == String(repeating: "é", count: 61) + "a")
        }
    }

    @Test("A socket whose close was refused for its reason closes with 1001 when it is dropped")
    func refusedCloseThenDropClosesWithGoingAway() async throws {
        try await withWebSocketServer { server in
            let id = connectionID()
            // The socket's last reference ends with this function.
            func openAndTryToClose() async throws {
                let socket = try await makeManager().perform(SocketRequest(server.provider(), "/count?id=\(id)"))
                await #expect(throws: NetworkError.self) { try await socket.close(reason: Self.tooLong) }
            }
            try await openAndTryToClose()
            #expect(try await server.closeCode(id) == 1001)
        }
    }
}
