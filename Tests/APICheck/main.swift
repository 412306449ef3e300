// The public API exactly as the issues and the documentation show it, compiled in a module of its own
// with warnings as errors (`swift build` builds it; nothing runs it). If a change breaks what a
// user writes, or makes it warn in Swift 6 mode, the build fails here.

import Foundation
import NetworkLayer

// MARK: - The core example (top-level code runs on the main actor: the strictest case)

struct ITunesServiceProvider: ServiceProvider {
    var host: String { "itunes.apple.com" }
    var httpScheme: HTTPScheme { .https }
    func createHTTPHeaders() -> [String: String] { ["Accept": "application/json"] }
}

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

final class ITunesSearchRequest: BaseRequest<ITunesSearchResponse> {
    init(artist: String, limit: Int) {
        super.init(serviceProvider: ITunesServiceProvider(), endpoint: "/search")
        params = ["term": artist, "limit": limit]
        mockedResponseFilename = "ITunesSearchMockedResponse"
    }
}

guard CommandLine.arguments.contains("--run") else { exit(0) }

let response = try await Net.perform(ITunesSearchRequest(artist: "Dream Theater", limit: 3))
print(response.resultCount ?? 0)

Net.performRequest(request: ITunesSearchRequest(artist: "Dream Theater", limit: 3)) { result in
    switch result {
    case .success(let response): print(response.resultCount ?? 0)
    case .failure(let error): print(error.localizedDescription, error.recoverySuggestion ?? "")
    }
}

// A request kept by a main-actor object and performed later.
@MainActor final class SearchViewModel {
    var request = ITunesSearchRequest(artist: "Dream Theater", limit: 3)
    var count = 0
    func load() async {
        do {
            count = try await Net.perform(request).resultCount ?? 0
        } catch .timeOut {
            count = -1
        } catch {
            print(error.localizedDescription)
        }
    }
}

// MARK: - Settings

Net.isVerbose = false
Net.logHandler = { entry in print(entry, terminator: "") }
Net.logEntryHandler = { (entry: NetworkLogEntry) in
    guard entry.level >= NetworkLogEntry.Level.info else { return }
    let phase: NetworkLogEntry.Phase = entry.phase
    let headers: [NetworkLogEntry.Header] = entry.headers
    let metrics: TransferMetrics? = entry.metrics
    let elapsed: Duration? = entry.elapsed
    print(entry.requestID, phase.rawValue, entry.level, entry.method.rawValue, entry.url, entry.isMocked, entry.message,
          entry.statusCode ?? 0, elapsed ?? .zero, entry.bytesSent ?? 0, entry.bytesReceived ?? 0, metrics?.total ?? .zero,
          headers.map { "\($0.name): \($0.value)" }, entry.body ?? "", entry.curlCommand ?? "", entry.errorDescription ?? "",
          entry.description, entry == entry)
}
Net.logEntryHandler = nil
Net.areMocksEnabled = true
Net.mockResponsesDirectory = URL(fileURLWithPath: "MockResponses")
Net.mockRecordingDirectory = nil
Net.certificatesDirectory = URL(fileURLWithPath: "Certificates")
Net.customCABundle = nil
Net.completionQueue = .main
Net.maximumResponseSize = 10 << 20
Net.redactedHeaderNames = ["X-Tenant-Signature"]

// MARK: - Errors

func describe(_ error: NetworkError) -> String {
    switch error {
    case .generic(let code): "generic \(code ?? 0)"
    case .reachability: "reachability"
    case .timeOut: "timeOut"
    case .invalidCertificate: "invalidCertificate"
    case .serialization: "serialization"
    case .notFound: "notFound"
    case .unauthorizedAccess: "unauthorizedAccess"
    case .customUser(let description, let recovery, let code): "\(description) \(recovery) \(code ?? 0)"
    case .cancelled: "cancelled"
    case .mockNotFound(let filename): filename
    case .invalidRequest, .transport, .apiError, .validation: error.context?.reason ?? ""
    case .circuitOpen(let context): "\(context.circuitOpenUntil ?? Date())"
    }
}
let thrown: [NetworkError] = [.generic(code: 500), .reachability, .timeOut, .invalidCertificate, .serialization, .notFound,
                              .unauthorizedAccess, .cancelled, .mockNotFound(filename: "x"),
                              .customUser(description: "User deleted", recovery: "Please contact an admin", code: 666)]
print(thrown.map(describe))

// The original design's spellings (AMNetworkLayer): default associated values.
let seedErrors: [NetworkError] = [
    .generic(),
    .generic(code: nil),
    .customUser(description: "User deleted", code: 666),
    NetworkError.customUser(description: "User deleted",
                            recovery: "Please contact an admin",
                            code: 666),
]
for seedError in seedErrors {
    switch seedError {
    case .generic(code: let code?) where code >= 500: print("server", code)
    case .generic(let code): print(code ?? 0)
    case .customUser(description: let description, recovery: _, code: 666): print(description)
    case let .customUser(description, recovery, code): print(description, recovery, code ?? 0)
    default: break
    }
    if case .generic(nil) = seedError { print("no code") }
}

// A failing status without a case of its own: the status and the response it came with.
func retryAfter(of error: NetworkError) -> String? {
    guard case .apiError(let context) = error, [429, 503].contains(error.statusCode) else { return nil }
    return context.response?.value(forHeader: "Retry-After")
}
print(retryAfter(of: .generic(code: 429)) ?? "none")

// MARK: - Pinning, as in the original design

let cert01 = CertificateModel(filename: "Cert001", fileExtension: .der)
let cert02 = CertificateModel(filename: "Cert002", fileExtension: .crt)
let cert03 = CertificateModel(filename: "Cert003", fileExtension: .other(fileExtension: "cer"))
try Net.configurePinningWith(certificates: [cert01, cert02, cert03], isEnabled: true)
try Net.configurePinning([PinningRule(hosts: ["api.example.com", "*.cdn.example.com"],
                                      publicKeyHashes: ["sha256/igUZ/pLpqlvMToY6kxB7zsuw0oM15ImIGYxKvuz4AMI="])],
                         isEnabled: true)

// MARK: - A provider with its own rules, reusing the default steps

struct ShopError: ServerErrorBody {
    let code: Int
    let message: String
    var serverMessage: String? { message }
}

struct ShopProvider: ServiceProvider {
    static let tokens = BearerTokenSource(token: { "token" }, refresh: { "fresh" })
    var host: String { "api.shop.example" }
    var httpScheme: HTTPScheme { .https }
    var port: Int? { 8443 }
    var authentication: Authentication? { .bearer(Self.tokens) }
    var retryPolicy: RetryPolicy? { RetryPolicy(maximumAttempts: 3) }
    var errorBodyType: (any ServerErrorBody.Type)? { ShopError.self }
    var jsonDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    func createHTTPHeaders() async throws -> [String: String] { ["X-Client": "check"] }

    func parseAndValidate<Response: Decodable>(_ response: HTTPResponse, as type: Response.Type) throws -> Response {
        try response.validateStatus()
        let value = try response.decode(type)
        if let search = value as? ITunesSearchResponse, (search.resultCount ?? 0) < 1 {
            throw NetworkError.customUser(description: "No results", recovery: "Search again", code: 777)
        }
        return value
    }
}

struct NewItem: Encodable, Sendable { let name: String }
struct Item: Decodable, Sendable { let id: Int }

final class CreateItemRequest: BaseRequest<Item> {
    init(name: String, photo: URL) {
        super.init(serviceProvider: ShopProvider(), endpoint: "/items")
        httpMethod = .post
        body = .multipart(MultipartFormData().text("name", name).file("photo", at: photo, mimeType: "image/jpeg"))
        additionalHeaders = ["X-Request-ID": UUID().uuidString]
        requestTimeout = .seconds(30)
        acceptableStatusCodes = 200..<300
    }
}

final class ItemsRequest: BaseRequest<[Item]> {
    init(page: Int) {
        super.init(serviceProvider: ShopProvider(), endpoint: "/items")
        params = ["page": page, "tags": ["a", "b"], "filter": ["year": 1992]]
        arrayEncoding = .brackets
        keyPath = "data.items"
        requiresAuthentication = false
    }
}

final class BackupRequest: BaseRequest<DownloadedFile> {
    init(to destination: URL) {
        super.init(serviceProvider: ShopProvider(), endpoint: "/backup.tar")
        downloadDestination = destination
        requestTimeout = .seconds(Int64.max)                            // beyond 10⁹ s: no limit
    }
}

let (items, itemsResponse) = try await Net.performWithResponse(ItemsRequest(page: 2))
print(items.count, itemsResponse.statusCode, itemsResponse.value(forHeader: "Link") ?? "", itemsResponse.metrics?.total ?? .zero)
let backup = BackupRequest(to: URL(fileURLWithPath: "backup.tar"))
let progress = backup.progressUpdates()
Task { for await update in progress { print(update.fractionCompleted ?? 0) } }
print(try await Net.perform(backup).size)
print(try await Net.curlCommand(for: CreateItemRequest(name: "x", photo: URL(fileURLWithPath: "p.jpg"))))
do {
    _ = try await Net.perform(CreateItemRequest(name: "x", photo: URL(fileURLWithPath: "p.jpg")))
} catch {
    print(error.serverError(as: ShopError.self)?.code ?? 0, error.underlyingError ?? "")
}
let handle = Net.performRequest(request: ItemsRequest(page: 1)) { _ in }
handle.cancel()
Net.closeIdleConnections()

// MARK: - Issue 17: base path, untyped JSON

struct VersionedProvider: ServiceProvider {
    var host: String { "api.shop.example" }
    var httpScheme: HTTPScheme { .https }
    var basePath: String { "/api/v2" }
}

final class Call<Response: Decodable & Sendable>: BaseRequest<Response> {
    init(_ endpoint: String, params: [String: any Sendable] = [:]) {
        super.init(serviceProvider: VersionedProvider(), endpoint: endpoint)
        self.params = params
    }
}

let any = try await Net.perform(Call<JSONValue>("/catalog"))
let itemName: String? = any["data"]?["items"]?[0]?["name"]?.stringValue
let untyped: (Double?, Int?, Bool?, [JSONValue]?, [String: JSONValue]?) =
    (any["total"]?.doubleValue, any["total"]?.intValue, any["open"]?.boolValue, any["items"]?.arrayValue, any.objectValue)
print(itemName ?? "", untyped)
switch any {
case .null, .bool, .number, .string, .array, .object: break
}
let filter: JSONValue = ["year": 1992, "genre": "prog", "tags": ["a", "b"], "price": 9.99, "live": true, "none": .null]
let search = Call<[JSONValue]>("/search", params: ["filter": filter])
search.httpMethod = .post
search.body = .json(filter)
let roundTrip = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(filter))
print(roundTrip == filter, filter.description)

// MARK: - Issue 17: signing in adapt, validators and error bodies per request, errors that keep what failed

func hmacSHA256(key: String, _ text: String) -> String { "\(key.count)-\(text.count)" }
struct OrderHeld: Error {}
struct Order: Decodable, Sendable { let id: Int }
struct NewOrder: Encodable, Sendable { let item: String }

struct SignedShopProvider: ServiceProvider {
    let secret = "k"
    var host: String { "api.shop.example" }
    var httpScheme: HTTPScheme { .https }
    var basePath: String { "/api/v2" }

    func adapt(_ request: inout OutgoingRequest) async throws {
        let digest = hmacSHA256(key: secret, request.method.rawValue + request.url.path + (request.body.map { String(decoding: $0, as: UTF8.self) } ?? ""))
        request.setHeader("X-Signature", digest)
        request.setHeader("X-Request-Time", "1700000000", secret: false)
        request.setHeader("X-Tenant-Proof", "p", secret: true)
        request.removeHeader("X-Debug")
        let seen: ([String: String], String?, Int?, URL) = (request.headers, request.value(forHeader: "accept"), request.bodyLength, request.url)
        print(seen)
    }
}

final class PlaceOrder: BaseRequest<Order> {
    init(_ order: NewOrder) {
        super.init(serviceProvider: SignedShopProvider(), endpoint: "/orders")
        httpMethod = .post
        body = .json(order)
        validator = { response in
            if response.value(forHeader: "X-Order-State") == "held" { throw OrderHeld() }
        }
    }
}

let placeOrder = PlaceOrder(NewOrder(item: "guitar"))
placeOrder.errorBodyType = ShopError.self
placeOrder.errorBodyType = nil
do {
    _ = try await Net.perform(placeOrder)
} catch {
    if let held = error.underlyingError as? OrderHeld { print(held) }
    let challenge: String? = error.context?.response?.value(forHeader: "WWW-Authenticate")
    let failing: HTTPResponse? = error.context?.response
    print(challenge ?? "", failing?.statusCode ?? 0, failing?.body.count ?? 0, HTTPResponse.errorBodyLimit)
    if case .validation(let context) = error { print(context.response?.statusCode ?? 0) }
}
let validating: (@Sendable (HTTPResponse) throws -> Void)? = placeOrder.validator
print(validating == nil, try await Net.curlCommand(for: placeOrder))

Net.performRequestWithResponse(request: ItemsRequest(page: 3)) { result in
    switch result {
    case .success(let (items, response)): print(items.count, response.statusCode, response.value(forHeader: "Link") ?? "")
    case .failure(let error): print(error.localizedDescription, error.context?.response?.statusCode ?? 0)
    }
}
let withResponse: RequestHandle = Net.performRequestWithResponse(request: PlaceOrder(NewOrder(item: "x"))) { (result: Result<(value: Order, response: HTTPResponse), NetworkError>) in
    if case .success(let delivered) = result { print(delivered.value.id, delivered.response.statusCode) }
}
withResponse.cancel()

// MARK: - Issue 13: mocked failures, mocks in code, sequences, recorded requests

struct Profile: Codable, Sendable { let name: String }
struct Token: Codable, Sendable { let value: String }

struct AccountProvider: ServiceProvider {
    let tokens: BearerTokenSource
    var host: String { "api.example.com" }
    var httpScheme: HTTPScheme { .https }
    var authentication: Authentication? { .bearer(tokens) }
}

final class ProfileRequest: BaseRequest<Profile> {
    init(_ provider: AccountProvider) {
        super.init(serviceProvider: provider, endpoint: "/me")
    }
}

let bytes = Data([0x89, 0x50, 0x4E, 0x47])
Net.mocks.register(ProfileRequest.self) { request in           // by request class
    .json(Profile(name: "Ada"))                                 // any Encodable, status 200
}
Net.mocks.register(.get, "/search", .file("ITunesSearchMockedResponse"))   // by method and path
Net.mocks.register(.post, "/login", [.status(401), .json(Token(value: "t"))])  // a sequence, then the last repeats
Net.mocks.register(.get, "/slow", .data(bytes, status: 200, headers: ["Content-Type": "image/png"], delay: .seconds(2)))
Net.mocks.register(.get, "/down", .failure(.reachability))

let sent: [RecordedRequest] = Net.mocks.requests   // every request answered in mock mode, in order
let wouldHaveGoneOut: (HTTPMethod?, URL?, [String: String]?, Data?) = (sent.last?.method, sent.last?.url, sent.last?.headers, sent.last?.body)
print(wouldHaveGoneOut)
Net.mocks.removeAll()                              // registrations and recorded requests

// Every MockResponse, spelled out; failures of each kind; the rest of the registry.
let answers: [MockResponse] = [
    .json(Profile(name: "Ada"), status: 201, headers: ["ETag": "1"], delay: .milliseconds(5)),
    .data(bytes), .data(bytes, status: 206, headers: [:], delay: .zero),
    .file("Profile"), .status(204), .status(422, body: Data(#"{"message": "no"}"#.utf8)),
    .failure(.reachability), .failure(.timeOut), .failure(.invalidCertificate), .failure(.transport), .failure(.cancelled),
    .failure(.timeOut(.init(reason: "the gateway gave up"))),
]
Net.mocks.register(.get, "/answers", answers)
Net.mocks.register(.get, "/search?term=jazz") { (request: RecordedRequest) -> MockResponse in
    request.url.query?.contains("limit") == true ? .json([Profile(name: "Ada")]) : .status(400)
}
let registry: MockRegistry = Net.mocks
let ownRegistry = MockRegistry()
ownRegistry.removeAll()
print(registry.requests.last?.value(forHeader: "Authorization") ?? "", registry.requests.last?.description ?? "",
      MockRegistry.recordedRequestLimit, RecordedRequest.recordedBodyLimit)

// The Mock mode and testing article's "Testing with mocks", outside a test target: the app's code, then the test's body
// (`#expect` as `check`).
@MainActor final class ProfileModel {
    private let net: NetworkManager
    private let provider: AccountProvider
    private(set) var name = ""
    private(set) var isOffline = false

    init(net: NetworkManager = Net, provider: AccountProvider) {
        self.net = net
        self.provider = provider
    }

    func load() async {
        do {
            name = try await net.perform(ProfileRequest(provider)).name
            isOffline = false
        } catch .reachability {
            isOffline = true
        } catch {
            name = ""
        }
    }
}

func check(_ condition: Bool) { if !condition { print("failed") } }

@MainActor func loadsTheProfileAfterATokenRefresh() async throws {
    let net = NetworkManager()              // this test's own mocks and records: tests run in parallel
    net.areMocksEnabled = true
    net.mocks.register(.get, "/me", [.status(401), .json(Profile(name: "Ada"))])
    let tokens = BearerTokenSource(token: { "expired" }, refresh: { "fresh" })
    let model = ProfileModel(net: net, provider: AccountProvider(tokens: tokens))

    await model.load()

    check(model.name == "Ada")
    let sent = net.mocks.requests           // the 401, then the retry with the refreshed token
    check(sent.map(\.method) == [.get, .get])
    check(sent.map { $0.value(forHeader: "Authorization") } == ["Bearer expired", "Bearer fresh"])
}

@MainActor func showsOfflineWithoutANetwork() async {
    let net = NetworkManager()
    net.areMocksEnabled = true
    net.mocks.register(ProfileRequest.self) { _ in .failure(.reachability) }
    let model = ProfileModel(net: net, provider: AccountProvider(tokens: BearerTokenSource(token: { "t" })))

    await model.load()

    check(model.isOffline)
}
try await loadsTheProfileAfterATokenRefresh()
await showsOfflineWithoutANetwork()

// MARK: - Secrets carried with the request (issue 11)

struct AzureProvider: ServiceProvider {
    var host: String { "api.contoso.example" }
    var httpScheme: HTTPScheme { .https }
    var authentication: Authentication? { .apiKey("k", header: "Ocp-Apim-Subscription-Key") }  // secret whatever its name
    func createHTTPHeaders() -> [String: String] { ["X-Tenant-Key": "t"] }
    var secretHeaderNames: Set<String> { ["X-Tenant-Key"] }
    var secretQueryItemNames: Set<String> { ["tenant_hint"] }
}

final class UploadTicketRequest: BaseRequest<EmptyResponse> {
    init(ticket: String) {
        super.init(serviceProvider: AzureProvider(), endpoint: "/uploads")
        additionalHeaders["X-Upload-Ticket"] = ticket
        secretHeaderNames = ["X-Upload-Ticket"]
        secretQueryItemNames = ["session_hint"]
    }
}

Net.redactedQueryItemNames = ["session_hint"]
let declaredHeaders: Set<String> = UploadTicketRequest(ticket: "t").secretHeaderNames.union(AzureProvider().secretHeaderNames)
print(declaredHeaders, UploadTicketRequest(ticket: "t").secretQueryItemNames, AzureProvider().secretQueryItemNames,
      Net.redactedQueryItemNames)
// Replayable with real values; with a secret header aboard it has no --location (see the Logging and redaction article).
print(try await Net.curlCommand(for: UploadTicketRequest(ticket: "t"), redactingSecrets: false))

// MARK: - Bounded numbers and the decompression guard (issue 11)

Net.decompressionLimit = .standard                       // the default: a ratio of 100 above 16 MiB
Net.decompressionLimit = .ratio(500)                     // allow more expansion
Net.decompressionLimit = .ratio(50, floor: 1 << 20)      // or less, from 1 MiB
let exportRequest = UploadTicketRequest(ticket: "t")
exportRequest.decompressionLimit = DecompressionLimit.none   // no guard for one request
exportRequest.requestTimeout = .seconds(Int64.max)
print(Net.decompressionLimit, exportRequest.decompressionLimit?.ratio ?? 0, RetryPolicy.delayCeiling)
// MARK: - Issue 14: streaming responses (bytes, lines, server-sent events, NDJSON)

enum Secrets { static let apiKey = "sk-test" }
struct ChatChunk: Decodable, Sendable { let text: String }

struct ChatProvider: ServiceProvider {
    var host: String { "api.example.com" }
    var httpScheme: HTTPScheme { .https }
    var authentication: Authentication? { .bearer(Secrets.apiKey) }
}

final class ChatCompletionStream: BaseRequest<EventStream> {
    init(prompt: String) {
        super.init(serviceProvider: ChatProvider(), endpoint: "/v1/chat/completions")
        httpMethod = .post
        params = ["prompt": prompt, "stream": true]
        mockedResponseFilename = "ChatCompletionStream"   // MockResponses/ChatCompletionStream.sse
    }
}

func streamChat() async throws {
    let events = try await Net.perform(ChatCompletionStream(prompt: "Hello"))   // returns once the status is validated
    for try await event in events {                                              // ServerSentEvent
        if event.data == "[DONE]" { break }
        let chunk = try event.decode(ChatChunk.self)                             // the data field as JSON
        print(chunk.text, terminator: "")
    }
    let status: Int = events.response.statusCode
    let sse: ServerSentEvent = ServerSentEvent(id: "1", event: "delta", data: "{}", retry: .seconds(3))
    let fields: (String?, String?, String, Duration?) = (sse.id, sse.event, sse.data, sse.retry)
    print(status, fields, try sse.decode(ChatChunk.self, using: JSONDecoder()).text)
}

final class LogTail: BaseRequest<ByteStream> {
    init() { super.init(serviceProvider: ChatProvider(), endpoint: "/logs/follow") }
}

struct ExportedOrder: Decodable, Sendable { let id: Int }

final class OrdersExport: BaseRequest<JSONLines<ExportedOrder>> {
    init() { super.init(serviceProvider: ChatProvider(), endpoint: "/orders/export") }
}

func streamBytesAndLines() async throws(NetworkError) {
    let stream = try await Net.perform(LogTail())
    let head: HTTPResponse = stream.response
    for try await line in stream.lines { print(line, head.statusCode) }
    for try await chunk in try await Net.perform(LogTail()) { print(chunk.count) }
    for try await order in try await Net.perform(OrdersExport()) { print(order.id) }
}

Net.mocks.register(.post, "/v1/chat/completions", .events([ServerSentEvent(data: #"{"text":"Hi"}"#), ServerSentEvent(data: "[DONE]")],
                                                           eventDelay: .milliseconds(40)))
let streamEndedPhase: NetworkLogEntry.Phase = .streamEnded
print(streamEndedPhase)

Net.performRequest(request: ChatCompletionStream(prompt: "Hi")) { (result: Result<EventStream, NetworkError>) in
    if case .success(let events) = result { print(events.response.statusCode) }
}

// MARK: - Choosing the JSON decoder (issue 12)

Net.usesFastJSONDecoder = false
Net.usesFastJSONDecoder = true
let decodesWithFastJSON: Bool = Net.usesFastJSONDecoder

struct LegacyProvider: ServiceProvider {
    var host: String { "legacy.example.com" }
    var httpScheme: HTTPScheme { .https }
    var usesFastJSONDecoder: Bool { false }   // this backend: Foundation's JSONDecoder
}

print(decodesWithFastJSON, LegacyProvider().usesFastJSONDecoder, ITunesServiceProvider().usesFastJSONDecoder)


// MARK: - Proxies and Unix sockets (issue 15)

Net.proxy = .environment                          // default
Net.proxy = .none                                 // ignore the environment
Net.proxy = .http(URL(string: "http://proxy.corp:3128")!, username: "u", password: "p", excluding: ["localhost", ".internal"])
Net.proxy = .socks5(URL(string: "socks5h://127.0.0.1:1080")!)
struct InternalAPI: ServiceProvider {
    var host: String { "api.internal" }
    var httpScheme: HTTPScheme { .https }
    var proxy: ProxyConfiguration? { ProxyConfiguration.none }
}
struct DockerEngine: ServiceProvider {
    var host: String { "localhost" }
    var httpScheme: HTTPScheme { .http }
    var unixSocketPath: String? { "/var/run/docker.sock" }
}
let routing: (ProxyConfiguration, ProxyConfiguration?, String?) = (Net.proxy, InternalAPI().proxy, DockerEngine().unixSocketPath)
print(routing)
Net.proxy = .environment

// MARK: - Cookies (issue 15)

Net.cookieStorage = .inMemory                     // or .file(URL) — persisted in the Netscape format, .none
let cookies: [Cookie] = Net.cookies(for: URL(string: "https://api.example.com")!)
Net.removeAllCookies()
let jarFile: CookieStorage = .file(URL(fileURLWithPath: "/tmp/cookies.txt"))
let sample = Cookie(name: "n", value: "v", domain: ".example.com", path: "/", expires: nil, isSecure: true, isHTTPOnly: false)
print(cookies.count, jarFile, sample.name, sample.value, sample.domain, sample.path, sample.expires as Any, sample.isSecure,
      sample.isHTTPOnly, sample == sample)
Net.cookieStorage = .none

// MARK: - Streamed upload bodies (issue 14)

final class UploadExportRequest: BaseRequest<EmptyResponse> {
    init(chunks: some AsyncSequence<Data, Never> & Sendable, length: Int?) {
        super.init(serviceProvider: ShopProvider(), endpoint: "/exports")
        httpMethod = .put
        body = .stream(chunks, length: length)                    // Content-Length: length, or chunked when nil
    }
}
// The Streaming responses article's sample.
final class UploadExport: BaseRequest<EmptyResponse> {
    init(rows: some AsyncSequence<Data, any Error> & Sendable, size: Int?) {
        super.init(serviceProvider: ShopProvider(), endpoint: "/exports")
        httpMethod = .put
        body = .stream(rows, length: size, contentType: "text/csv")   // size nil: chunked
    }
}
print(UploadExport(rows: AsyncThrowingStream<Data, any Error> { $0.finish() }, size: nil).endpoint)
let (uploadChunks, uploadFeed) = AsyncStream.makeStream(of: Data.self)
let throwingChunks = AsyncThrowingStream<Data, Error> { $0.finish() }
let streamedBodies: [RequestBody] = [
    .stream(uploadChunks, length: nil),
    .stream(throwingChunks, length: 0, contentType: "text/csv"),
    .stream([Data("a".utf8)].async, length: 1),
]
uploadFeed.finish()
print(streamedBodies.count, UploadExportRequest(chunks: AsyncStream<Data> { $0.finish() }, length: nil).httpMethod)

extension Array where Element: Sendable {
    /// An AsyncSequence over the array (the API check's own; any AsyncSequence of Data works).
    var async: AsyncArray<Element> { AsyncArray(elements: self) }
}
struct AsyncArray<Element: Sendable>: AsyncSequence, Sendable {
    let elements: [Element]
    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<Element>
        mutating func next() async -> Element? { rest.popFirst() }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: elements[...]) }
}

// MARK: - The libcurl thread as a task executor (issue 16)

let engineExecutor: any TaskExecutor = NetworkManager.engineExecutor
func fetchItemsOnEngine(pages: Int) async throws -> [Item] {
    try await withTaskExecutorPreference(engineExecutor) {   // runs on the libcurl thread: never block it
        var items: [Item] = []
        for page in 0..<pages { items += try await Net.perform(ItemsRequest(page: page)) }
        return items
    }
}
let engineTask = Task(executorPreference: NetworkManager.engineExecutor) { try await fetchItemsOnEngine(pages: 2).count }
engineTask.cancel()

// MARK: - Issue 28: the port as an Int or an Int?, computed or stored (README, 1. Service provider); read through any ServiceProvider

struct LocalServiceProvider: ServiceProvider {
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }
    var port: Int { 8080 }
}
struct LocalStoredPort: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme = HTTPScheme.http
    var port = 8766
}
struct LocalOptionalPort: ServiceProvider {
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }
    var port: Int? { ProcessInfo.processInfo.environment["PORT"].flatMap(Int.init) }
}
protocol LocalBackend: ServiceProvider {}
extension LocalBackend {
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }
    var port: Int { 9000 }
}
struct LocalInventory: LocalBackend {}
let ports: [any ServiceProvider] = [LocalServiceProvider(), LocalStoredPort(), LocalOptionalPort(), LocalInventory(), ITunesServiceProvider()]
print(ports.map { $0.portNumber ?? 443 }, LocalServiceProvider().port + 1, (ShopProvider().port ?? 443) + 1)

// MARK: - Issue 28: what a program prints is redacted; the members stay raw

func printRedacted(_ response: HTTPResponse, _ error: NetworkError, _ outgoing: OutgoingRequest, _ recorded: RecordedRequest) {
    print(response, String(reflecting: response), response.customMirror.children.count, response.url, response.headers.count)
    print(error, error.context?.response?.url.query ?? "", outgoing.description, outgoing.debugDescription,
          outgoing.customMirror.children.count, recorded.debugDescription)
}
let printedValues: [any CustomStringConvertible & CustomDebugStringConvertible & CustomReflectable] = [
    Authentication.bearer("t"), Cookie(name: "sid", value: "v", domain: "example.com"),
    ProxyConfiguration.http(URL(string: "http://proxy.corp:3128")!, username: "u", password: "p"),
    MockResponse.status(204), MultipartFormData().text("user", "ada"), RequestBody.json(object: ["a": 1]),
]
print(printedValues.map { "\($0.description) \($0.debugDescription) \($0.customMirror.children.count)" })
print(ITunesSearchRequest(artist: "Dream Theater", limit: 3).customMirror.children.count,
      ShopProvider.tokens.customMirror.children.count)
checkPipelineAPI(nextLinkURL: URL(string: "https://api.github.com/repos?page=2")!)

// MARK: - HTTP caching (issue 26): the settings' types here; the issue's whole block in Caching.swift

let cacheSettings: [ResponseCache] = [
    .memory(limit: 32 << 20),
    .disk(directory: URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("api-cache"), limit: 512 << 20),
    .none,
]
let cachePolicies: [CachePolicy] = [.useProtocol, .reloadIgnoringCache, .returnCacheElseLoad, .returnCacheDontLoad]
func describe(_ status: CacheStatus?) -> String {
    switch status {
    case .miss?: "MISS"
    case .hit?: "HIT"
    case .revalidated?: "REVALIDATED"
    case .stale?: "STALE"
    case nil: "no cache"
    }
}
func cacheLine(_ response: HTTPResponse) -> String { describe(response.cacheStatus) }
print(cacheSettings.count, cachePolicies.count, describe(.hit), Set(cacheSettings).count,
      cacheLine(HTTPResponse(statusCode: 200, url: URL(fileURLWithPath: "/"))))
// MARK: - What a server-side user takes for granted (issue 25, phase 1)

try Net.configurePinningWith(certificates: [], isEnabled: false)   // pinning off, as AMNetworkLayer's README says

// Repeated response headers: each line, in order, never joined.
let cookieResponse = HTTPResponse(statusCode: 200, headerFields: [("Set-Cookie", "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT"),
                                                                   (name: "Set-Cookie", value: "b=2")],
                                  body: Data(), url: URL(string: "https://api.example.com")!, isMocked: false)
let cookieLines: [String] = cookieResponse.values(forHeader: "Set-Cookie")
let joinedCookies: String? = cookieResponse.value(forHeader: "Set-Cookie")
print(cookieLines, joinedCookies ?? "")
let repeatedAnswers: [MockResponse] = [
    .json(["ok": true], headerFields: [("Link", "</items?page=2>; rel=\"next\""), ("Link", "</items?page=9>; rel=\"last\"")]),
    .json(["ok": true], status: 201, headerFields: [], delay: .zero),
    .data(bytes, headerFields: [("Vary", "Accept-Encoding"), ("Vary", "Origin")]),
    .data(bytes, status: 200, headerFields: [(name: "Set-Cookie", value: "a=1")], delay: .milliseconds(5)),
]
print(repeatedAnswers.count)

// Acceptable statuses: ranges and single codes, on the request and the provider.
struct CatalogProvider: ServiceProvider {
    var host: String { "api.example.com" }
    var httpScheme: HTTPScheme { .https }
    var acceptableStatuses: StatusCodes { StatusCodes(200..<300, 304) }
}
final class CatalogRequest: BaseRequest<EmptyResponse> {
    init() {
        super.init(serviceProvider: CatalogProvider(), endpoint: "/catalog")
        acceptableStatuses = StatusCodes(200..<300, 304)
        acceptableStatuses = [200...299, 304]
        acceptableStatusCodes = 200..<300                 // still compiles; the set wins
    }
}
let notModified: StatusCodes = StatusCodes(200..<300, 304, 400...403)
print(notModified.contains(304), notModified.ranges, notModified.description, StatusCodes.success == StatusCodes([200..<300]),
      CatalogRequest().acceptableStatuses ?? .success, CatalogProvider().acceptableStatusCodes)
try cookieResponse.validateStatus(acceptable: notModified)
try cookieResponse.validateStatus(acceptable: 200..<300)
try cookieResponse.validateStatus()
let expression: any StatusCodeExpression = 304
print(expression.statusCodeRange ?? 0...0, (200..<300).statusCodeRange ?? 0...0, (200...299).statusCodeRange ?? 0...0)

// A provider from one base URL.
let githubToken = "token"
let github = try BaseURLProvider("https://api.github.com/v3",
                                 headers: ["Accept": "application/json"], authentication: .bearer(githubToken))
var staging = try BaseURLProvider(URL(string: "http://127.0.0.1:8080")!)
staging.headers["X-Env"] = "staging"
staging.authentication = .basic(username: "u", password: "p")
let someProvider: any ServiceProvider = github
print(github.baseURL, github.host, github.httpScheme, github.port ?? 443, github.basePath, staging.headers, someProvider.host)
final class RepoRequest: BaseRequest<JSONValue> {
    init(_ provider: BaseURLProvider) { super.init(serviceProvider: provider, endpoint: "/user/repos") }
}
print(RepoRequest(github).endpoint)

// Client certificates (mutual TLS).
let certURL = URL(fileURLWithPath: "client.pem"), keyURL = URL(fileURLWithPath: "client.key")
let keyPassword: String? = "secret"
struct Bank: ServiceProvider {
    var host: String { "api.bank.example" }
    var httpScheme: HTTPScheme { .https }
    var clientCertificate: ClientCertificate? {
        .pem(certificate: certURL, privateKey: keyURL, password: keyPassword)
    }
}
struct Vault: ServiceProvider {
    var host: String { "vault.example" }
    var httpScheme: HTTPScheme { .https }
    var clientCertificate: ClientCertificate? { .pkcs12(URL(fileURLWithPath: "client.p12"), password: "secret") }
}
let identities: [ClientCertificate] = [
    .pem(certificate: certURL, privateKey: keyURL), .pem(certificate: certURL, privateKey: keyURL, password: nil),
    .pkcs12(URL(fileURLWithPath: "client.p12")), ClientCertificate.pkcs12(URL(fileURLWithPath: "client.p12"), password: "secret"),
]
print(identities.map(\.description), identities[0] == identities[1], Set(identities).count, String(reflecting: identities[3]),
      Bank().clientCertificate ?? identities[0], Vault().clientCertificate.map { "\($0)" } ?? "", ITunesServiceProvider().clientCertificate == nil)
let describedProvider: any CustomStringConvertible & CustomDebugStringConvertible & CustomReflectable = github
let describedCertificate: any CustomStringConvertible & CustomDebugStringConvertible & CustomReflectable = identities[0]
print(describedProvider.description, describedProvider.customMirror.children.count, describedCertificate.debugDescription)
// MARK: - The library's version (issue 27)

let networkLayerVersion: String = NetworkLayerInfo.version   // "2.0.0"; the User-Agent says NetworkLayer/<version>
try await checkCachingAPI(cachesDirectory: URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("api-cache"))
checkServerSideAPI(destination: URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("archive.tar"))
configureLinuxService()
checkMiddlewareAPI()
checkIssue53DNSAPI()
try await checkOpenAPIAPI()
checkFirstUserAPI()
try await checkStreamsAPI()
await checkCircuitAPI()
try await checkViewsAPI()
try await checkWebSocketAPI()
checkHostileServerAPI()
