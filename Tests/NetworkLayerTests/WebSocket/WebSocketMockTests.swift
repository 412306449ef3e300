import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// In mock mode a scripted peer answers: a closure registered in code, or a `.ws` file.
@Suite("WebSocket mocks", .sharing)
struct WebSocketMockTests {
    static let provider = TestProvider(host: "chat.example.com", httpScheme: .https, port: nil)

    @Test("A peer registered in code answers; the messages and the handshake are recorded")
    func peerInCode() async throws {
        let directory = try MockDirectory()
        let net = makeManager(mocks: directory.url)
        net.mocks.register(.get, "/rooms/general/ws", .webSocket { peer in
            #expect(peer.request.headers["Upgrade"] == "websocket")
            try await peer.send(.text("welcome"))
            for try await message in peer.messages { try await peer.send(message) }
        })
        let socket = try await net.perform(SocketRequest(Self.provider, "/rooms/general/ws", protocols: ["chat.v2"]))
        #expect(socket.negotiatedProtocol == "chat.v2")
        #expect(socket.response.isMocked)
        try await socket.send(.text("hello"))
        try await socket.send(.binary(Data([7])))
        var iterator = socket.makeAsyncIterator()
        #expect(try await iterator.next() == .text("welcome"))
        #expect(try await iterator.next() == .text("hello"))
        #expect(try await iterator.next() == .binary(Data([7])))
        try await socket.close(.normalClosure, reason: "bye")
        #expect(socket.closeCode == .normalClosure)
        let url = URL(string: "https://chat.example.com/rooms/general/ws")!
        #expect(net.mocks.webSocketMessages == [.sent(.text("hello"), to: url), .sent(.binary(Data([7])), to: url),
                                                .received(.text("welcome"), from: url), .received(.text("hello"), from: url),
                                                .received(.binary(Data([7])), from: url)])
        #expect(net.mocks.requests.last?.headers["Sec-WebSocket-Version"] == "13")
    }

    @Test("A .ws script plays its steps; the server's close ends the loop with its code")
    func scriptFile() async throws {
        let directory = try MockDirectory()
        try directory.write("ChatSocket", fileExtension: "ws", body: """
            # a greeting, an expected message, an answer, a close
            < {"type":"welcome"}
            > hello
            <b AAEC
            ~ 0.01
            close 4000 done
            """)
        let net = makeManager(mocks: directory.url)
        let request = SocketRequest(Self.provider, "/rooms/general/ws")
        request.mockedResponseFilename = "ChatSocket"
        let socket = try await net.perform(request)
        try await socket.send(.text("hello"))
        let (messages, error) = await drain(socket)
        #expect(error == nil)
        #expect(messages == [.text(#"{"type":"welcome"}"#), .binary(Data([0, 1, 2]))])
        #expect(socket.closeCode == WebSocketCloseCode(rawValue: 4000) && socket.closeReason == "done")
    }

    @Test("A message the script does not expect fails the loop, naming the line")
    func scriptMismatch() async throws {
        let directory = try MockDirectory()
        try directory.write("ChatSocket", fileExtension: "ws", body: "> hello\n< never\n")
        let net = makeManager(mocks: directory.url)
        let request = SocketRequest(Self.provider, "/rooms/general/ws")
        request.mockedResponseFilename = "ChatSocket"
        let socket = try await net.perform(request)
        try await socket.send(.text("goodbye"))
        let (_, error) = await drain(socket)
        guard case .invalidRequest(let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(context.reason?.contains("ChatSocket.ws, line 1") == true)
        #expect(socket.closeCode == .policyViolation)
    }

    @Test("A script with a line that is not a step fails perform, naming it; no mock fails as usual")
    func badScript() async throws {
        let directory = try MockDirectory()
        try directory.write("ChatSocket", fileExtension: "ws", body: "< ok\nwhat is this\n")
        let net = makeManager(mocks: directory.url)
        let request = SocketRequest(Self.provider, "/rooms/general/ws")
        request.mockedResponseFilename = "ChatSocket"
        await #expect(throws: NetworkError.self) { try await net.perform(request) }
        await #expect {
            try await net.perform(SocketRequest(Self.provider, "/nowhere"))
        } throws: { error in
            guard case NetworkError.mockNotFound(let files) = error else { return false }
            return files.contains("nowhere.ws")
        }
    }

    @Test("A peer that throws fails the client's loop with 1011")
    func peerThrows() async throws {
        struct Broken: Error {}
        let net = makeManager(mocks: try MockDirectory().url)
        net.mocks.register(.get, "/ws", .webSocket { _ in throw Broken() })
        let socket = try await net.perform(SocketRequest(Self.provider, "/ws"))
        let (_, error) = await drain(socket)
        #expect(error != nil)
        #expect(socket.closeCode == .internalServerError)
    }
}
