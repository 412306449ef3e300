// Generated from README.md by scripts/readme-check.py: do not edit (edit the README, then
// run `make readme-check`). Every ```swift block of the README, in order, as one program;
// built with warnings as errors (`make test` builds it first), never run.

// README.md:43: not compiled (Package.swift)

#sourceLocation(file: "README.md", line: 70)
import Foundation
import NetworkLayer

struct ITunesServiceProvider: ServiceProvider {
    var host: String { "itunes.apple.com" }
    var httpScheme: HTTPScheme { .https }
    func createHTTPHeaders() -> [String: String] { ["Accept": "application/json"] }
}

struct LocalServiceProvider: ServiceProvider {
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }
    var port: Int { 8080 }      // an Int, or an Int? (nil: the scheme's own, 443 or 80)
}
#sourceLocation()

#sourceLocation(file: "README.md", line: 97)
final class ITunesSearchRequest: BaseRequest<ITunesSearchResponse> {
    init(artist: String, limit: Int) {
        super.init(serviceProvider: ITunesServiceProvider(), endpoint: "/search")
        params = ["term": artist, "limit": limit]      // the query of a GET, a JSON body of a POST
        mockedResponseFilename = "ITunesSearchMockedResponse"
    }
}
#sourceLocation()

#sourceLocation(file: "README.md", line: 115)
struct ITunesSearchResponse: Codable, Sendable {
    let resultCount: Int?
    let results: [ITunesArtistResult]?
}

struct ITunesArtistResult: Codable, Sendable {
    let artistName: String?
    let collectionName: String?
    let collectionPrice: Double?
    let isStreamable: Bool?
}
#sourceLocation()

#sourceLocation(file: "README.md", line: 131)
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

#sourceLocation(file: "README.md", line: 156)
Net.areMocksEnabled = true                                             // or per provider: var areMocksEnabled: Bool?
Net.mockResponsesDirectory = URL(fileURLWithPath: "MockResponses")    // <name>.json, optional <name>.meta.json

Net.mocks.register(.get, "/search", .json(ITunesSearchResponse(resultCount: 0, results: [])))  // in code, first
Net.mocks.register(.post, "/login", [.status(401), .json(["token": "fresh"])])   // a sequence; the last repeats
Net.mocks.register(.get, "/down", .failure(.reachability))                      // what the network does
Net.mocks.registerFallback { request in request.method == .get ? .status(404) : nil }   // everything else
print(Net.mocks.requests.last?.value(forHeader: "Accept") ?? "-")             // what would have been sent
#sourceLocation()

#sourceLocation(file: "README.md", line: 176)
try Net.configurePinning([
    PinningRule(hosts: ["api.example.com", "*.cdn.example.com"],
                publicKeyHashes: ["sha256/igUZ/pLpqlvMToY6kxB7zsuw0oM15ImIGYxKvuz4AMI=",    // the issuing CA
                                  "sha256/Ugp6QwOC53xPO1KZThUmjcL58aE18wuGkBeksOi4Hu4="]),  // a backup
], isEnabled: true)
let intermediate = CertificateModel(filename: "Intermediate", fileExtension: .pem)   // in Net.certificatesDirectory
try Net.configurePinningWith(certificates: [intermediate], isEnabled: true)         // AMNetworkLayer's form
#sourceLocation()

#sourceLocation(file: "README.md", line: 194)
struct Payments: ServiceProvider {
    var host: String { "payments.internal" }
    var httpScheme: HTTPScheme { .https }
    var clientCertificate: ClientCertificate? {          // who this service is, to the backend
        .pem(certificate: URL(fileURLWithPath: "/etc/payments/client.pem"),
             privateKey: URL(fileURLWithPath: "/etc/payments/client.key"), password: nil)
    }
}

let payments = NetworkManager()                          // a manager of its own for the private backend
payments.customCABundle = URL(fileURLWithPath: "/etc/payments/ca.pem")   // who the backend is, to this service
#sourceLocation()

#sourceLocation(file: "README.md", line: 217)
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
for try await event in events {                     // ServerSentEvent: id, event, data, retry
    if event.data == "[DONE]" { break }
    print(try event.decode(ChatChunk.self).choices.first?.delta.content ?? "", terminator: "")
}
#sourceLocation()

#sourceLocation(file: "README.md", line: 248)
let feed = ChatCompletionStream(prompt: "Hello")
feed.reconnectPolicy = .eventSource(maximumAttempts: 10, reconnectsNonIdempotentMethods: true)  // a POST only when asked
Net.keepAlive = KeepAlive(idle: .seconds(60), interval: .seconds(30))
#sourceLocation()

#sourceLocation(file: "README.md", line: 263)
struct ChatRoomServer: ServiceProvider {
    var host: String { "chat.example.com" }
    var httpScheme: HTTPScheme { .https }             // https → wss
}

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
print(socket.closeCode ?? .abnormalClosure, socket.negotiatedProtocol ?? "none")
#sourceLocation()

#sourceLocation(file: "README.md", line: 296)
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

#sourceLocation(file: "README.md", line: 330)
struct Timing: RequestMiddleware {
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        let start = ContinuousClock.now
        let response = try await next(request)
        print(request.method, request.redactedURL, response.statusCode, ContinuousClock.now - start)
        return response
    }
}
Net.middlewares = [Timing(), RequestCoalescing()]   // once per call; Net.networkMiddlewares: each request on the wire
#sourceLocation()

#if Observability
#sourceLocation(file: "README.md", line: 346)
import NetworkLayerObservability
import Logging

Net.middlewares = [TracingMiddleware(), MetricsMiddleware()]   // OpenTelemetry's HTTP client spans and metrics
Net.logEntryHandler = SwiftLogBridge(logger: Logger(label: "network")).handle
#sourceLocation()
#endif

// README.md:364: not compiled (the generated client exists only in a package that runs the generator)

#if OpenAPI
#sourceLocation(file: "README.md", line: 371)
import NetworkLayerOpenAPI

Net.mocks.register(operationID: "getGreeting", .json(["message": "Hello, Ada"]))   // or MockResponses/getGreeting.json
let notes = NetworkLayerTransport(provider: try BaseURLProvider("https://notes.example.com/v1"))
#sourceLocation()
#endif

#sourceLocation(file: "README.md", line: 383)
Net.cookieStorage = .inMemory     // off by default; .file(url) keeps them in curl's cookie-jar format
Net.proxy = .http(URL(string: "http://proxy.corp:3128")!, excluding: ["localhost", ".internal"])  // default: .environment
#sourceLocation()

#sourceLocation(file: "README.md", line: 397)
struct InternalAPI: ServiceProvider {
    var host: String { "internal.example" }
    var httpScheme: HTTPScheme { .https }
    var tls: TLSOptions? { TLSOptions(minimumVersion: .v1_3, trustedCertificates: URL(fileURLWithPath: "/etc/ssl/internal-ca.pem")) }
    var authentication: Authentication? { .digest(user: "svc", password: "secret") }   // .ntlm(user:password:), .negotiate
    var ipFamily: IPFamily? { .ipv6Only }
}

struct Bucket: ServiceProvider {
    var host: String { "s3.eu-west-1.amazonaws.com" }
    var httpScheme: HTTPScheme { .https }
    var authentication: Authentication? {
        .awsSigV4(accessKeyID: "AKID", secretAccessKey: "secret", sessionToken: nil, region: "eu-west-1", service: "s3")
    }
}

final class BackupDownload: BaseRequest<DownloadedFile> {
    init(to destination: URL) {
        super.init(serviceProvider: Bucket(), endpoint: "/backups/latest.tar")
        downloadDestination = destination
    }
}

Net.dnsCacheTimeout = .seconds(60); Net.happyEyeballsTimeout = .milliseconds(200)
Net.recordsTraffic = true
let backup = BackupDownload(to: URL(fileURLWithPath: "/tmp/latest.tar"))
do {
    _ = try await Net.perform(backup)
} catch {
    if let resumeData = error.resumeData {           // Codable: save it, continue after a restart
        _ = try await Net.perform(backup, resumingFrom: resumeData)   // Range + If-Range
    }
}
try Net.recordedTraffic.har().write(to: URL(fileURLWithPath: "/tmp/session.har"))   // secrets redacted
#sourceLocation()

#sourceLocation(file: "README.md", line: 473)
do {
    _ = try await Net.perform(ITunesSearchRequest(artist: "Dream Theater", limit: 3))
} catch .unauthorizedAccess {
    print("sign in again")
} catch {
    print(error.localizedDescription, error.recoverySuggestion ?? "", error.statusCode ?? 0)
    print(error.code)                // "timeOut", "apiError"…: the case's name, for metrics and alerts
    print(error.logfmtDescription)   // error=timeOut request="GET https://…" reason="…" underlying=CurlError curl_code=28
}
#sourceLocation()

#sourceLocation(file: "README.md", line: 492)
struct Inventory: ServiceProvider {
    var host: String { "inventory.internal" }
    var httpScheme: HTTPScheme { .http }
    var port: Int { 8080 }                              // an Int: the port it names
    var retryPolicy: RetryPolicy? { RetryPolicy() }     // 3 attempts: 408, 429, 500, 502–504, transport failures
}
struct Item: Codable, Sendable { let id: Int; let name: String }
final class ItemsRequest: BaseRequest<[Item]> {
    init() { super.init(serviceProvider: Inventory(), endpoint: "/items") }     // mock: GET/items.json
}

Net.isVerbose = false                                   // the text log: off in release builds already
Net.logEntryHandler = { entry in                        // every event, redacted, as data: one line each
    guard entry.level >= .info else { return }
    var line = "request=\(entry.requestID) phase=\(entry.phase.rawValue) method=\(entry.method.rawValue) url=\(entry.url)"
    if let status = entry.statusCode { line += " status=\(status)" }   // nil when no response came (a timeout)
    if let code = entry.errorCode {                                   // a failure: why, in the entry itself
        line += " error=\(code) reason=\"\(entry.errorDescription ?? "")\""
    }
    print(line)
}
// A service's working directory is not its package's: give the mock files an absolute place.
Net.mockResponsesDirectory = URL(fileURLWithPath: "/srv/inventory/MockResponses", isDirectory: true)

/// In a tool without `async` code, wait for the completion handler. It runs on Net.completionQueue,
/// a private serial queue, so the waiting thread may block (never wait on that queue itself).
func printItems() {
    let done = DispatchSemaphore(value: 0)
    Net.performRequest(request: ItemsRequest()) { result in
        switch result {
        case .success(let items): items.forEach { print($0.id, $0.name) }
        case .failure(let error): print(error.localizedDescription)
        }
        done.signal()
    }
    done.wait()
}
#sourceLocation()
