// Generated from README.md by scripts/readme-check.py: do not edit (edit the README, then
// run `make readme-check`). Every ```swift block of the README, in order, as one program;
// built with warnings as errors (`make test` builds it first), never run.

// README.md:42: not compiled (Package.swift)

#sourceLocation(file: "README.md", line: 66)
import Foundation
import NetworkLayer

struct ITunesServiceProvider: ServiceProvider {
    var host: String { "itunes.apple.com" }
    var httpScheme: HTTPScheme { .https }
    func createHTTPHeaders() -> [String: String] { ["Accept": "application/json"] }
}
#sourceLocation()

#sourceLocation(file: "README.md", line: 85)
final class ITunesSearchRequest: BaseRequest<ITunesSearchResponse> {
    init(artist: String, limit: Int) {
        super.init(serviceProvider: ITunesServiceProvider(), endpoint: "/search")
        params = ["term": artist, "limit": limit]      // the query of a GET, a JSON body of a POST
        mockedResponseFilename = "ITunesSearchMockedResponse"
    }
}
#sourceLocation()

#sourceLocation(file: "README.md", line: 103)
struct ITunesSearchResponse: Codable, Sendable {
    let resultCount: Int?
    let results: [ITunesArtistResult]?
}
struct ITunesArtistResult: Codable, Sendable {
    let artistName, collectionName: String?
    let collectionPrice: Double?
}
#sourceLocation()

#sourceLocation(file: "README.md", line: 116)
let response = try await Net.perform(ITunesSearchRequest(artist: "Dream Theater", limit: 3))  // throws NetworkError
print(response.resultCount ?? 0)

Net.performRequest(request: ITunesSearchRequest(artist: "Dream Theater", limit: 3)) { result in
    switch result {                               // called once, on Net.completionQueue
    case .success(let response): print(response.resultCount ?? 0)
    case .failure(let error): print(error.localizedDescription, error.recoverySuggestion ?? "")
    }
}

let (found, httpResponse) = try await Net.performWithResponse(ITunesSearchRequest(artist: "Rush", limit: 1))
print(found.results?.first?.collectionName ?? "-", httpResponse.statusCode, httpResponse.value(forHeader: "ETag") ?? "-")
#sourceLocation()

#sourceLocation(file: "README.md", line: 141)
Net.areMocksEnabled = true                                             // or per provider: var areMocksEnabled: Bool?
Net.mockResponsesDirectory = URL(fileURLWithPath: "MockResponses")    // <name>.json, optional <name>.meta.json

Net.mocks.register(.get, "/search", .json(ITunesSearchResponse(resultCount: 0, results: [])))  // in code, first
Net.mocks.register(.post, "/login", [.status(401), .json(["token": "fresh"])])   // a sequence; the last repeats
Net.mocks.register(.get, "/down", .failure(.reachability))                      // what the network does
Net.mocks.registerFallback { request in request.method == .get ? .status(404) : nil }   // everything else
print(Net.mocks.requests.last?.value(forHeader: "Accept") ?? "-")             // what would have been sent
#sourceLocation()

#sourceLocation(file: "README.md", line: 160)
try Net.configurePinning([
    PinningRule(hosts: ["api.example.com", "*.cdn.example.com"],
                publicKeyHashes: ["sha256/igUZ/pLpqlvMToY6kxB7zsuw0oM15ImIGYxKvuz4AMI=",    // the issuing CA
                                  "sha256/Ugp6QwOC53xPO1KZThUmjcL58aE18wuGkBeksOi4Hu4="]),  // a backup
], isEnabled: true)
let intermediate = CertificateModel(filename: "Intermediate", fileExtension: .pem)   // in Net.certificatesDirectory
try Net.configurePinningWith(certificates: [intermediate], isEnabled: true)         // AMNetworkLayer's form
#sourceLocation()

#sourceLocation(file: "README.md", line: 177)
struct ChatProvider: ServiceProvider {
    var host: String { "api.openai.com" }
    var httpScheme: HTTPScheme { .https }
    var authentication: Authentication? { .bearer(ProcessInfo.processInfo.environment["OPENAI_API_KEY"] ?? "") }
}

struct ChatChunk: Decodable, Sendable {            // one event's data: {"choices":[{"delta":{"content":"Hi"}}]}
    struct Choice: Decodable, Sendable { struct Delta: Decodable, Sendable { let content: String? }; let delta: Delta }
    let choices: [Choice]
}

final class ChatCompletionStream: BaseRequest<EventStream> {
    init(prompt: String) {
        super.init(serviceProvider: ChatProvider(), endpoint: "/v1/chat/completions")
        httpMethod = .post
        params = ["model": "gpt-4o-mini", "stream": true, "messages": [["role": "user", "content": prompt]]]
        mockedResponseFilename = "ChatCompletionStream"    // ChatCompletionStream.sse in mock mode
    }
}

let events = try await Net.perform(ChatCompletionStream(prompt: "Hello"))
for try await event in events {  // ServerSentEvent; `events.forEachEvent { … }` lends views: no allocation per event
    if event.data == "[DONE]" { break }
    print(try event.decode(ChatChunk.self).choices.first?.delta.content ?? "", terminator: "")
}
#sourceLocation()

#sourceLocation(file: "README.md", line: 214)
struct ChatRoomServer: ServiceProvider { var host: String { "chat.example.com" }; var httpScheme: HTTPScheme { .https } }  // wss

final class ChatSocket: BaseRequest<WebSocket> {
    init(room: String) {
        super.init(serviceProvider: ChatRoomServer(), endpoint: "/rooms/\(room)/ws")
        webSocketProtocols = ["chat.v2"]
        mockedResponseFilename = "ChatSocket"          // ChatSocket.ws in mock mode: a script of the server
    }
}

let socket = try await Net.perform(ChatSocket(room: "general"))   // a refused handshake throws here
try await socket.send(.text("hello"))                              // .binary(Data) too; waits when the peer is slow
for try await message in socket {                                  // ends when the server closes
    if case .text(let text) = message { print(text) }
}
try await socket.close(.normalClosure, reason: "bye")
#sourceLocation()

#sourceLocation(file: "README.md", line: 242)
struct Signer: RequestInterceptor {
    let keyID: String
    let key: String
    func adapt(_ request: inout OutgoingRequest) async throws {
        let timestamp = String(Int(Date().timeIntervalSince1970))
        let body = String(decoding: request.body ?? Data(), as: UTF8.self)
        let payload = [request.method.rawValue, request.url.path, timestamp, body].joined(separator: "\n")
        let signature = try Signing.hmacSHA256(key: key, message: payload)   // OpenSSL's: no package to add
        request.setHeader("X-Key-ID", keyID, secret: false, identifiesCaller: true)     // whose: keys the cache
        request.setHeader("X-Timestamp", timestamp, secret: false)
        request.setHeader("X-Signature", Signing.hex(signature), secret: true, identifiesCaller: false)  // redacted
    }
}

Net.interceptors = [Signer(keyID: "shop-1", key: "signing-key")]   // every request; a provider's: its origin only
#sourceLocation()

#if Observability
#sourceLocation(file: "README.md", line: 271)
import NetworkLayerObservability
import Logging

struct Timing: RequestMiddleware {
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        let start = ContinuousClock.now
        let response = try await next(request)
        print(request.method, request.redactedURL, response.statusCode, ContinuousClock.now - start)
        return response
    }
}
Net.middlewares = [Timing(), RequestCoalescing(), TracingMiddleware(), MetricsMiddleware()]  // OpenTelemetry's spans, metrics
Net.logEntryHandler = SwiftLogBridge(logger: Logger(label: "network")).handle
#sourceLocation()
#endif

#sourceLocation(file: "README.md", line: 303)
struct Payments: ServiceProvider {
    var host: String { "payments.internal" }
    var httpScheme: HTTPScheme { .https }
    var tls: TLSOptions? { TLSOptions(minimumVersion: .v1_3) }
    var clientCertificate: ClientCertificate? {          // who this service is, to the backend
        .pem(certificate: URL(fileURLWithPath: "/etc/payments/client.pem"),
             privateKey: URL(fileURLWithPath: "/etc/payments/client.key"), password: nil)
    }
    var ipFamily: IPFamily? { .ipv6Only }
}
let payments = NetworkManager()                          // a manager of its own for the private backend
payments.customCABundle = URL(fileURLWithPath: "/etc/payments/ca.pem")   // who the backend is, to this service

struct Bucket: ServiceProvider {
    var host: String { "s3.eu-west-1.amazonaws.com" }
    var httpScheme: HTTPScheme { .https }
    var authentication: Authentication? {               // .digest(user:password:), .ntlm(user:password:), .negotiate
        .awsSigV4(accessKeyID: "AKID", secretAccessKey: "secret", sessionToken: nil, region: "eu-west-1", service: "s3")
    }
}
Net.recordsTraffic = true
try Net.recordedTraffic.har().write(to: URL(fileURLWithPath: "/tmp/session.har"))   // secrets redacted
#sourceLocation()

#sourceLocation(file: "README.md", line: 368)
do {
    _ = try await Net.perform(ITunesSearchRequest(artist: "Dream Theater", limit: 3))
} catch .unauthorizedAccess {
    print("sign in again")
} catch {
    print(error.code, error.localizedDescription)   // "timeOut", "apiError"…: the case's name, for alerts
    print(error.logfmtDescription)                   // error=timeOut request="GET https://…" reason="…" curl_code=28
}
#sourceLocation()
