// `make demo-ws`: a chat over a WebSocket, answered by a scripted mock server
// (MockResponses/ChatSocket.ws), so it runs anywhere. It joins #general, answers the first
// question, prints every message (the server's text escaped, never acted on), and reports how the
// server closed. ARGS="--verbose" shows the library's log: the handshake, then one line per message.

import Foundation
import NetworkLayer

struct ChatServer: ServiceProvider {
    var host: String { "chat.example.com" }
    var httpScheme: HTTPScheme { .https }                      // wss://chat.example.com
}

final class ChatSocket: BaseRequest<WebSocket> {
    init(room: String) {
        super.init(serviceProvider: ChatServer(), endpoint: "/rooms/\(room)/ws")
        webSocketProtocols = ["chat.v2"]
        mockedResponseFilename = "ChatSocket"                  // MockResponses/ChatSocket.ws
    }
}

/// What the chat server sends: a welcome, then messages.
struct Event: Decodable {
    let type: String
    let room: String?
    let members: [String]?
    let from: String?
    let text: String?
}

struct Outgoing: Encodable {
    let type: String
    let name: String?
    let text: String?
}

func json(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

Net.isVerbose = CommandLine.arguments.contains("--verbose")
Net.areMocksEnabled = true
Net.mockResponsesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("MockResponses", isDirectory: true)

do {
    let socket = try await Net.perform(ChatSocket(room: "general"))
    print("connected to #general over \(socket.negotiatedProtocol ?? "no subprotocol")")
    try await socket.send(.text(#"{"type":"join","name":"ada"}"#))
    var answered = false
    for try await message in socket {
        guard case .text(let text) = message, let event = try? JSONDecoder().decode(Event.self, from: Data(text.utf8)) else {
            print("(a message that is not a chat event: \(message.byteCount) bytes)")
            continue
        }
        switch event.type {
        case "welcome":
            print("#\(event.room ?? "?") — here: \((event.members ?? []).joined(separator: ", "))")
        case "message":
            print("<\(event.from ?? "?")> \((event.text ?? "").printable())")
            if !answered {
                answered = true
                try await socket.send(.text(try json(Outgoing(type: "message", name: nil, text: "It did: through libcurl, pinned and logged."))))
                print("<ada> It did: through libcurl, pinned and logged.")
            }
        default:
            print("(\(event.type))")
        }
    }
    print("the server closed the room: \(socket.closeCode?.description ?? "no code") \(socket.closeReason ?? "")")
} catch {
    print("chat failed: \(error.localizedDescription)")
    exit(1)
}
