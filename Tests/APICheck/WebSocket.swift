// Issue 35: WebSocket, exactly as the block writes it, and every other public spelling.

import Foundation
import NetworkLayer

struct ChatRoomsProvider: ServiceProvider {
    var host: String { "chat.example.com" }
    var httpScheme: HTTPScheme { .https }                                // https → wss
    var webSocketOptions: WebSocketOptions? { WebSocketOptions(maximumMessageSize: 16 << 20, compression: .permessageDeflate,
                                                               pingInterval: .seconds(30)) }
}

final class ChatSocket: BaseRequest<WebSocket> {                         // like EventStream: the response type says "a socket"
    init(room: String) {
        super.init(serviceProvider: ChatRoomsProvider(), endpoint: "/rooms/\(room)/ws")
        webSocketProtocols = ["chat.v2"]
        mockedResponseFilename = "ChatSocket"
        webSocketOptions = WebSocketOptions(compression: .none, pingInterval: nil, closeTimeout: .seconds(2), maximumFrameSize: 1 << 16)
    }
}

func checkWebSocketAPI() async throws {
    Net.webSocketOptions = WebSocketOptions(maximumMessageSize: 16 << 20, compression: .permessageDeflate, pingInterval: .seconds(30))
    Net.webSocketOptions.compression = .permessageDeflate(noContextTakeover: true, maximumWindowBits: 12)
    let socket = try await Net.perform(ChatSocket(room: "general"))   // the handshake's failures throw here
    try await socket.send(.text("hello"))                              // .binary(Data) too; waits when the peer is slow
    try await socket.send(.binary(Data([1, 2, 3])))
    for try await message in socket {                                  // WebSocketMessage: .text(String) / .binary(Data)
        if case .text(let text) = message { print(text) }
        print(message.byteCount)
    }
    try await socket.close(.normalClosure, reason: "bye")              // WebSocketCloseCode; socket.closeCode / closeReason after
    let code: WebSocketCloseCode? = socket.closeCode
    let reason: String? = socket.closeReason
    let chosen: String? = socket.negotiatedProtocol                    // "chat.v2"
    let compressed: Bool = socket.isCompressed
    let handshake: HTTPResponse = socket.response
    let custom = WebSocketCloseCode(rawValue: 4001)
    print(code ?? .goingAway, reason ?? "", chosen ?? "", compressed, handshake.statusCode, custom.isSendable, custom.rawValue,
          [WebSocketCloseCode.protocolError, .unsupportedData, .noStatusReceived, .abnormalClosure, .invalidFramePayloadData,
           .policyViolation, .messageTooBig, .mandatoryExtensionMissing, .internalServerError].map(\.description),
          WebSocketOptions.Compression.none == .permessageDeflate)

    // Mocks: a peer in code, and what it carried.
    Net.mocks.register(.get, "/rooms/general/ws", .webSocket { peer in
        print(peer.request.url)
        for try await m in peer.messages { try await peer.send(m) }
        peer.close(.normalClosure, reason: "done")
    })
    let recorded: [RecordedWebSocketMessage] = Net.mocks.webSocketMessages
    if let first = recorded.first { print(first.isSent, first.message, first.url, first == .sent(.text("hello"), to: first.url),
                                          RecordedWebSocketMessage.received(.text("hi"), from: first.url)) }
    let options = WebSocketOptions()
    print(options.maximumMessageSize, options.compression, options.pingInterval ?? .zero, options.closeTimeout, options.maximumFrameSize)
}
