// NetworkLayer's side of the WebSocket benchmark: `--messages N --size S` over ws://127.0.0.1:<port>/echo,
// sent by one task while another reads the echoes; prints `RESULT <seconds> <messages/s> <MB/s>`.

import Foundation
import NetworkLayer

struct EchoServer: ServiceProvider {
    let port: Int
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }
}

final class EchoSocket: BaseRequest<WebSocket> {
    init(port: Int) {
        super.init(serviceProvider: EchoServer(port: port), endpoint: "/echo")
        webSocketOptions = WebSocketOptions(compression: .none, pingInterval: nil)
    }
}

func argument(_ name: String, _ fallback: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
    return Int(arguments[index + 1]) ?? fallback
}

let port = argument("--port", 8765), count = argument("--messages", 100_000), size = argument("--size", 32)
Net.isVerbose = false
let socket = try await Net.perform(EchoSocket(port: port))
let message: WebSocketMessage = size <= 1024 ? .text(String(repeating: "x", count: size)) : .binary(Data(count: size))
let started = ContinuousClock.now
let sender = Task {
    for _ in 0..<count { try await socket.send(message) }
}
var received = 0
var bytes = 0
for try await echo in socket {
    received += 1
    bytes += echo.byteCount
    if received == count { break }
}
try await sender.value
let seconds = (ContinuousClock.now - started).components
let elapsed = Double(seconds.seconds) + Double(seconds.attoseconds) / 1e18
try await socket.close()
guard received == count, bytes == count * size else {
    print("FAILED received \(received) messages, \(bytes) bytes")
    exit(1)
}
print("RESULT \(elapsed) \(Double(count) / elapsed) \(Double(bytes) / elapsed / 1e6)")
