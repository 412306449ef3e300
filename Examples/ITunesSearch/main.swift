import Foundation
import NetworkLayer

// ITunesSearch [artist] [--limit N] [--live] [--host URL]
//
// By default it answers from MockResponses/ITunesSearchMockedResponse.json (mock mode) and
// shows the verbose log. --live asks itunes.apple.com; --host sends the request to any server.
// The streaming chat that `--stream` used to show is an example of its own: Examples/ChatClient
// (`make demo-chat`).

var artist = "Dream Theater"
var limit = 3
var live = false
var provider = ITunesServiceProvider()

var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--live":
        live = true
    case "--stream":
        fail("the streaming chat is an example of its own now: make demo-chat (Examples/ChatClient)")
    case "--limit":
        guard let value = arguments.popFirst().flatMap(Int.init) else { fail("--limit needs a number") }
        limit = value
    case "--host":
        guard let value = arguments.popFirst(), let url = URL(string: value), let host = url.host,
              let scheme = url.scheme.flatMap(HTTPScheme.init(rawValue:)) else {
            fail("--host needs a URL such as http://127.0.0.1:8080")
        }
        provider.host = host
        provider.httpScheme = scheme
        provider.port = url.port
        live = true
    case "--help", "-h":
        print("usage: ITunesSearch [artist] [--limit N] [--live] [--host URL]")
        exit(0)
    default:
        artist = argument
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ITunesSearch: \(message)\n".utf8))
    exit(2)
}

Net.isVerbose = true  // the default in a debug build only: the demo shows its log in a release build too
// The log goes to standard error by default; here it joins the program's own output, in order.
// Any logger can receive the entries the same way (swift-log, os_log, a file).
Net.logHandler = { entry in print(entry, terminator: "") }
Net.areMocksEnabled = !live
print(live ? "Searching \(provider.httpScheme)://\(provider.host) for \"\(artist)\"…"
           : "Mock mode: answering from \(Net.mockResponsesDirectory.path)/ITunesSearchMockedResponse.json")

do {
    let response = try await Net.perform(ITunesSearchRequest(artist: artist, limit: limit, provider: provider))
    print("\(response.resultCount ?? 0) results")
    for result in response.results ?? [] {
        let price = result.collectionPrice.map { String(format: "%.2f", $0) } ?? "-"
        print("  \(result.artistName ?? "?") — \(result.collectionName ?? "?") (\(price))")
    }
} catch {
    print("Request failed: \(error.localizedDescription)")
    if let recovery = error.recoverySuggestion { print("What to do: \(recovery)") }
    exit(1)
}
