#if IntegrationTests
import Foundation
import HTTPTypes
import NetworkLayer
import NetworkLayerOpenAPI
import OpenAPIRuntime

// One download through NetworkLayerTransport in a process of its own, for issue 34's promise that
// the response HTTPBody keeps the library's backpressure: `OpenAPIMemoryProbe <port> <bytes>` asks
// openapi_server.py on 127.0.0.1:`port` for `/bytes?count=<bytes>` as the generated client would
// (the transport's `send`), reads the body sleeping on every chunk (a reader slower than loopback),
// and prints one line of JSON: `{"bytes": received, "inOrder": whether every chunk continued the
// server's pattern (byte i is i % 251), "peak": the process's peak resident size (VmHWM) in bytes}`.

struct LoopbackProvider: ServiceProvider {
    let port: Int?
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }
    var timeouts: Timeouts? { Timeouts(request: .seconds(30)) }
}

func peakResidentBytes() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
    return kilobytes * 1024
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("OpenAPIMemoryProbe: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[1]), let size = Int(arguments[2]) else {
    fail("usage: OpenAPIMemoryProbe <port> <bytes>")
}
Net.isVerbose = false
let transport = NetworkLayerTransport(provider: LoopbackProvider(port: port))
var received = 0
var inOrder = true
do {
    let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/bytes?count=\(size)")
    let (response, body) = try await transport.send(request, body: nil, baseURL: URL(string: "http://127.0.0.1:\(port)")!,
                                                    operationID: "downloadBytes")
    guard response.status.code == 200, let body else { fail("status \(response.status.code), body \(body == nil ? "none" : "present")") }
    for try await chunk in body {
        if let first = chunk.first, first != UInt8(received % 251) { inOrder = false }
        if let last = chunk.last, last != UInt8((received + chunk.count - 1) % 251) { inOrder = false }
        received += chunk.count
        try await Task.sleep(for: .microseconds(20))
    }
} catch {
    fail("the download failed after \(received) bytes: \(error)")
}
guard let peak = peakResidentBytes() else { fail("cannot read VmHWM from /proc/self/status") }
print(#"{"bytes": \#(received), "inOrder": \#(inOrder), "peak": \#(peak)}"#)
#else
import Foundation
FileHandle.standardError.write(Data("OpenAPIMemoryProbe: built without the IntegrationTests trait\n".utf8))
exit(2)
#endif
