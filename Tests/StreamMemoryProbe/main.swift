import Foundation
import NetworkLayer

// One streamed download in a process of its own, for issue 14's promise that a fast server and a
// slow reader keep the process's peak resident size under 64 MB:
// `StreamMemoryProbe <port> <bytes>` streams `bytes` bytes from `/bytes` of the test SSE server
// on 127.0.0.1:`port` as a `ByteStream`, sleeping on every chunk (a reader slower than loopback),
// and prints one line of JSON: `{"bytes": received, "inOrder": whether every chunk continued the
// server's pattern, "peak": the process's peak resident size (VmHWM) in bytes}`. Used by the
// "Stream backpressure" suite; the peak is the whole process's, runtime and libraries included.

struct LoopbackProvider: ServiceProvider {
    let port: Int?
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }
}

final class Download: BaseRequest<ByteStream> {
    init(port: Int, bytes: Int) {
        super.init(serviceProvider: LoopbackProvider(port: port), endpoint: "/bytes")
        params = ["size": bytes, "chunk": 1_048_576]
        requestTimeout = .seconds(30)
    }
}

func peakResidentBytes() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
    return kilobytes * 1024
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("StreamMemoryProbe: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[1]), let size = Int(arguments[2]) else {
    fail("usage: StreamMemoryProbe <port> <bytes>")
}
Net.isVerbose = false  // the log's previews of 1 GB of binary chunks are no use here
var received = 0
var inOrder = true
do {
    let stream = try await Net.perform(Download(port: port, bytes: size))
    for try await chunk in stream {
        // Byte i of the body is i % 256: check each chunk's first and last byte.
        if let first = chunk.first, first != UInt8(truncatingIfNeeded: received) { inOrder = false }
        if let last = chunk.last, last != UInt8(truncatingIfNeeded: received + chunk.count - 1) { inOrder = false }
        received += chunk.count
        try await Task.sleep(for: .microseconds(20))
    }
} catch {
    fail("the stream failed after \(received) bytes: \(error)")
}
guard let peak = peakResidentBytes() else { fail("cannot read VmHWM from /proc/self/status") }
print(#"{"bytes": \#(received), "inOrder": \#(inOrder), "peak": \#(peak)}"#)
