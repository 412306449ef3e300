// The WebSocket echo server of the WebSocket benchmark: Hummingbird's (SwiftNIO), so that the server
// is not the bottleneck. Prints `PORT <n>` once listening on 127.0.0.1; echoes every message on /echo.

import Foundation
import Hummingbird
import HummingbirdWebSocket

let router = Router()
let app = Application(
    router: router,
    server: .http1WebSocketUpgrade(configuration: .init(ws: .init(maxFrameSize: 1 << 20, autoPing: .disabled))) { request, _, _ in
        guard request.path == "/echo" else { return .dontUpgrade }
        return .upgrade([:]) { inbound, outbound, _ in
            for try await message in inbound.messages(maxSize: 1 << 20) {
                switch message {
                case .text(let text): try await outbound.write(.text(text))
                case .binary(let buffer): try await outbound.write(.binary(buffer))
                }
            }
        }
    },
    configuration: .init(address: .hostname("127.0.0.1", port: Int(CommandLine.arguments.dropFirst().first ?? "") ?? 8765)),
    onServerRunning: { channel in
        // Unbuffered: the harness waits for this line.
        FileHandle.standardOutput.write(Data("PORT \(channel.localAddress?.port ?? 0)\n".utf8))
    }
)
try await app.runService()
