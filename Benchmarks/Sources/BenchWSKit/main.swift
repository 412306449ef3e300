// websocket-kit's (Vapor's) side of the WebSocket benchmark, doing what BenchWSNetworkLayer does:
// `--messages N --size S`, sent by one task while the callbacks count the echoes.

import Foundation
import NIOCore
import NIOPosix
import WebSocketKit

func argument(_ name: String, _ fallback: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
    return Int(arguments[index + 1]) ?? fallback
}

/// The echoes counted, on the event loop's thread only.
final class Tally: @unchecked Sendable {
    var messages = 0
    var bytes = 0
}

let port = argument("--port", 8765), count = argument("--messages", 100_000), size = argument("--size", 32)
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let (totals, continuation) = AsyncStream<Int>.makeStream()
let (sockets, socketContinuation) = AsyncStream<WebSocket>.makeStream()
let started = ContinuousClock.now
// The synchronous upgrade callback runs on the event loop, where websocket-kit's callbacks must be set.
try await WebSocket.connect(to: "ws://127.0.0.1:\(port)/echo", configuration: .init(maxFrameSize: 1 << 20), on: group) { ws in
    let tally = Tally()
    ws.onText { _, text in
        tally.messages += 1
        tally.bytes += text.utf8.count
        if tally.messages == count { continuation.yield(tally.bytes); continuation.finish() }
    }
    ws.onBinary { _, buffer in
        tally.messages += 1
        tally.bytes += buffer.readableBytes
        if tally.messages == count { continuation.yield(tally.bytes); continuation.finish() }
    }
    socketContinuation.yield(ws)
    socketContinuation.finish()
}.get()
var socket: WebSocket?
for await ws in sockets { socket = ws }
guard let ws = socket else { exit(1) }
if size <= 1024 {
    let text = String(repeating: "x", count: size)
    for _ in 0..<count { try await ws.send(text) }
} else {
    let payload = [UInt8](repeating: 0, count: size)
    for _ in 0..<count { try await ws.send(payload) }
}
var bytes = 0
for await total in totals { bytes = total }
let seconds = (ContinuousClock.now - started).components
let elapsed = Double(seconds.seconds) + Double(seconds.attoseconds) / 1e18
guard bytes == count * size else {
    print("FAILED \(bytes) bytes")
    exit(1)
}
print("RESULT \(elapsed) \(Double(count) / elapsed) \(Double(bytes) / elapsed / 1e6)")
try await ws.close()
exit(0)
