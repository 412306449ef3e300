// A client generated from openapi.yaml (swift-openapi-generator's build plugin) running on
// NetworkLayer: NetworkLayerTransport gives it the provider's credentials, pins, retries, mocks and
// the redacted log. By default every answer comes from MockResponses/<operationID>.json;
// `--server http://127.0.0.1:<port>/v1` runs it against Tests/Servers/openapi_server.py, and with
// `--check-mocks` checks its mocks against that server instead (CheckMocks.swift).
import Foundation
import NetworkLayer
import NetworkLayerOpenAPI
import OpenAPIRuntime

let arguments = CommandLine.arguments.dropFirst()
let live = arguments.firstIndex(of: "--server").flatMap { arguments.index(after: $0) < arguments.endIndex ? arguments[arguments.index(after: $0)] : nil }
if arguments.contains("--help") {
    print("usage: OpenAPIClient [--server http://127.0.0.1:<port>/v1 [--check-mocks]] [--verbose]")
    exit(0)
}

do {
    // The document's server, or the one given: the provider covers its origin, so the token goes there.
    let serverURL = try live.map { text in
        guard let url = URL(string: text) else { throw NetworkError.invalidRequest(.init(reason: "\(text) is not a URL")) }
        return url
    } ?? Servers.Server1.url()
    let provider = try BaseURLProvider(serverURL.absoluteString, authentication: .bearer("example-token"))
    let checksMocks = arguments.contains("--check-mocks")
    if live == nil || checksMocks {
        Net.mockResponsesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("MockResponses", isDirectory: true)
        // A mock in code, by operation ID: wins over the file.
        Net.mocks.register(operationID: "getNote", answer: { request in
            request.url.lastPathComponent == "404" ? .status(404) : .json(Components.Schemas.Note(id: 1, text: "a note from a mock in code"))
        })
    }
    Net.areMocksEnabled = live == nil
    Net.isVerbose = arguments.contains("--verbose")
    if checksMocks {
        guard live != nil else { throw NetworkError.invalidRequest(.init(reason: "--check-mocks needs --server, the backend to check the mocks against")) }
        let report = try await checkMocks(against: provider)
        print(report)
        exit(report.drifted.isEmpty ? 0 : 1)
    }
    let client = Client(serverURL: serverURL, transport: NetworkLayerTransport(provider: provider))
    print("server: \(serverURL.absoluteString)\(live == nil ? " (answered from mocks)" : "")")

    // A query parameter and a JSON response.
    let greeting = try await client.getGreeting(query: .init(name: "Ada")).ok.body.json
    print("getGreeting: \(greeting.message)")

    // A JSON request body.
    let note = try await client.createNote(body: .json(.init(text: "buy milk"))).created.body.json
    print("createNote: note \(note.id): \(note.text)")

    // A path parameter, with a documented error.
    switch try await client.getNote(path: .init(noteID: 1)) {
    case .ok(let ok): print("getNote 1: \(try ok.body.json.text)")
    case .notFound(let missing): print("getNote 1: not found: \(try missing.body.json.error)")
    case .undocumented(let status, _): print("getNote 1: status \(status)")
    }

    // A status the document does not list reaches `.undocumented`; the transport does not judge it.
    switch try await client.brewCoffee() {
    case .ok: print("brewCoffee: coffee")
    case .undocumented(let status, _): print("brewCoffee: undocumented status \(status)")
    }

    // A streamed download: chunks as they arrive, never the whole body in memory.
    let download = try await client.downloadBytes(query: .init(count: 3_000_000)).ok.body.binary
    var received = 0
    for try await chunk in download { received += chunk.count }
    print("downloadBytes: \(received) bytes streamed")

    // A streamed upload of unknown length: sent chunked while it is produced.
    let (chunks, continuation) = AsyncStream.makeStream(of: ArraySlice<UInt8>.self)
    Task {
        for _ in 0..<16 { continuation.yield(ArraySlice(repeating: 0x61, count: 64 * 1024)) }
        continuation.finish()
    }
    let receipt = try await client.upload(body: .binary(HTTPBody(chunks, length: .unknown))).ok.body.json
    print("upload: the server received \(receipt.bytes) bytes\(receipt.chunked ? ", chunked" : "")")

    // Server-sent events, decoded by the runtime as they arrive.
    let events = try await client.streamEvents(query: .init(count: 3)).ok.body.textEventStream
    for try await event in events.asDecodedServerSentEvents() {
        print("streamEvents: \(event.event ?? "message") \(event.data ?? "")")
    }

    // A transport failure is a ClientError whose underlying error is the library's NetworkError.
    let elsewhere = Client(serverURL: URL(string: "ftp://files.example.com")!, transport: NetworkLayerTransport(provider: provider))
    do {
        _ = try await elsewhere.getGreeting()
    } catch let error as ClientError {
        let cause = error.underlyingError as? NetworkError
        print("ftp server: \(cause?.errorDescription ?? "\(error.underlyingError)")")
    }
} catch {
    print("failed: \(error)")
    exit(1)
}
