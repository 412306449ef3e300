#if IntegrationTests
import Foundation
import HTTPTypes
import InMemoryTracing
import NetworkLayerObservability
@testable import NetworkLayerOpenAPI
import OpenAPIRuntime
import Testing
import TestScheduling
@testable import NetworkLayer

/// The `ClientError` `body` throws and the ``NetworkError`` it wraps, or `nil` (recorded as an issue).
func clientError<T>(_ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async -> (ClientError, NetworkError?)? {
    do {
        _ = try await body()
        Issue.record("expected a ClientError, but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as ClientError {
        return (error, error.underlyingError as? NetworkError)
    } catch {
        Issue.record("expected a ClientError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// `count` bytes of openapi_server.py's pattern (byte i is i % 251).
func patternBytes(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8($0 % 251) }
}

@Suite("NetworkLayerOpenAPI: a generated client on NetworkLayerTransport", .sharing)
struct NetworkLayerTransportTests {
    @Test("A query, a JSON body, a path parameter and a documented error reach the server and come back decoded")
    func generatedOperations() async throws {
        try await withOpenAPIServer { server in
            let client = server.client(makeManager())
            #expect(try await client.getGreeting(query: .init(name: "Ada Lovelace")).ok.body.json.message == "Hello, Ada Lovelace!")
            let note = try await client.createNote(body: .json(.init(text: "buy milk"))).created.body.json
            #expect(note.id == 7 && note.text == "buy milk")
            #expect(try await client.getNote(path: .init(noteID: 3)).ok.body.json.text == "note 3")
            #expect(try await client.getNote(path: .init(noteID: 404)).notFound.body.json.error == "no note 404")
        }
    }

    @Test("A status the document does not list reaches .undocumented with its body: the transport validates no status")
    func undocumentedStatus() async throws {
        try await withOpenAPIServer { server in
            // The provider's acceptable statuses (200..<300) and parseAndValidate are not applied.
            guard case .undocumented(let status, let payload) = try await server.client(makeManager()).brewCoffee() else {
                Issue.record("418 did not reach .undocumented")
                return
            }
            #expect(status == 418)
            let body = try await String(collecting: try #require(payload.body), upTo: 1024)
            #expect(body.contains("teapot"))
            #expect(payload.headerFields[.contentType] == "application/json")
        }
    }

    @Test("A serverURL with a path prefixes every operation's path")
    func serverURLWithAPath() async throws {
        try await withOpenAPIServer(basePath: "/api/v1") { server in
            let caller = try await server.client(makeManager()).whoami().ok.body.json
            #expect(caller.path == "/api/v1/whoami")
            #expect(try await server.client(makeManager()).getGreeting(query: .init(name: "Ada")).ok.body.json.message == "Hello, Ada!")
        }
    }

    @Test("The provider's credentials go to its own origin, never to a serverURL elsewhere")
    func credentialsOnlyToTheProvidersOrigin() async throws {
        try await withOpenAPIServer { server in
            let provider = server.provider(authentication: .bearer("t0ken"))
            let home = Client(serverURL: server.serverURL(), transport: NetworkLayerTransport(provider: provider, manager: makeManager()))
            #expect(try await home.whoami().ok.body.json.authorization == "Bearer t0ken")
            // localhost is another origin than the provider's 127.0.0.1: the same server, without the token.
            let elsewhere = Client(serverURL: server.serverURL(host: "localhost"),
                                   transport: NetworkLayerTransport(provider: provider, manager: makeManager()))
            let caller = try await elsewhere.whoami().ok.body.json
            #expect(caller.path == "/whoami")
            #expect(caller.authorization == nil)
        }
    }

    @Test("The provider's retry policy, redirect policy and timeouts govern a generated call")
    func providersPolicies() async throws {
        try await withOpenAPIServer { server in
            let net = makeManager()
            func greet(_ provider: ScriptedProvider) async throws -> Operations.GetGreeting.Output {
                try await server.client(net, provider: provider).getGreeting(query: .init(name: "Ada"))
            }
            func script(_ steps: String) -> String { "\(UUID().uuidString):\(steps)" }
            let retry = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(10), retryableStatuses: [503])
            #expect(try await greet(ScriptedProvider(port: server.port, script: script("503,503,ok"), retryPolicy: retry))
                .ok.body.json.message == "Hello, Ada!")
            guard case .undocumented(503, _) = try await greet(ScriptedProvider(port: server.port, script: script("503,ok"))) else {
                Issue.record("without a retry policy the 503 is the generated code's")
                return
            }
            #expect(try await greet(ScriptedProvider(port: server.port, script: script("302,ok"))).ok.body.json.message == "Hello, Ada!")
            let stays = ScriptedProvider(port: server.port, script: script("302,ok"), redirectPolicy: RedirectPolicy.none)
            guard case .undocumented(302, let payload) = try await greet(stays) else {
                Issue.record("with RedirectPolicy.none the 302 is the generated code's")
                return
            }
            #expect(payload.headerFields[.location]?.hasSuffix("/greet?name=Ada") == true)
            let late = ScriptedProvider(port: server.port, script: script("slow"), timeouts: Timeouts(request: .seconds(0.5)))
            let (error, cause) = try #require(await clientError { try await greet(late) })
            #expect(cause?.caseName == "timeOut", "\(error)")
        }
    }

    @Test("A serverURL that is not http(s), or has a query, a fragment or a user: a ClientError wrapping invalidRequest, nothing sent",
          arguments: ["ftp://127.0.0.1/files", "http://127.0.0.1:9/v1?key=secret", "http://127.0.0.1:9/v1#top",
                      "http://user:pw@127.0.0.1:9/v1", "file:///etc/passwd"])
    func badServerURLs(serverURL: String) async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        let net = makeManager(mocks: mocks.url)
        net.mocks.registerFallback { _ in .json(["message": "should not be asked"]) }
        let client = Client(serverURL: URL(string: serverURL)!,
                            transport: NetworkLayerTransport(provider: AuthProvider(port: 9, authentication: .bearer("t")), manager: net))
        let (error, cause) = try #require(await clientError { try await client.getGreeting() })
        #expect(cause?.caseName == "invalidRequest", "\(error)")
        #expect(cause?.errorDescription?.contains("serverURL") == true, "\(String(describing: cause?.errorDescription))")
        #expect(cause?.recoverySuggestion?.isEmpty == false)
        #expect(error.operationID == "getGreeting")
        // The library's error never shows the serverURL's query or password (the runtime's ClientError
        // prints its baseURL as the caller gave it).
        let described = "\(String(describing: cause)) \(cause?.errorDescription ?? "")"
        #expect(!described.contains("secret") && !described.contains(":pw@"), "\(described)")
        #expect(net.mocks.requests.isEmpty, "a request reached the transport")
    }

    @Test("An upload of unknown length streams chunked; one of known length goes with Content-Length")
    func streamedUpload() async throws {
        try await withOpenAPIServer { server in
            let client = server.client(makeManager())
            let (chunks, continuation) = AsyncStream.makeStream(of: ArraySlice<UInt8>.self)
            let bytes = patternBytes(3_000_000)
            let producer = Task {
                var offset = 0
                while offset < bytes.count {
                    continuation.yield(bytes[offset..<min(offset + 65_536, bytes.count)])
                    offset += 65_536
                    await Task.yield()
                }
                continuation.finish()
            }
            let receipt = try await client.upload(body: .binary(HTTPBody(chunks, length: .unknown))).ok.body.json
            await producer.value
            #expect(receipt.bytes == 3_000_000)
            #expect(receipt.chunked)
            #expect(receipt.sha256 == HMACSHA256.sha256(bytes).map { String(format: "%02x", $0) }.joined())

            let known = try await client.upload(body: .binary(HTTPBody(bytes[..<1000]))).ok.body.json
            #expect(known.bytes == 1000)
            #expect(!known.chunked)
        }
    }

    @Test("An upload sequence that throws halfway: a ClientError wrapping the NetworkError, with the thrower's error under it")
    func uploadThatThrowsHalfway() async throws {
        struct DiskGone: Error {}
        try await withOpenAPIServer { server in
            let net = makeManager()
            let client = server.client(net)
            let (chunks, continuation) = AsyncThrowingStream.makeStream(of: ArraySlice<UInt8>.self)
            continuation.yield(ArraySlice(repeating: 1, count: 1_000_000))
            continuation.finish(throwing: DiskGone())
            let (_, cause) = try #require(await clientError {
                try await client.upload(body: .binary(HTTPBody(chunks, length: .unknown)))
            })
            #expect(cause?.caseName == "invalidRequest", "\(String(describing: cause))")
            #expect(cause?.underlyingError is DiskGone)
            // The server and the manager are fine afterwards.
            #expect(try await client.getGreeting(query: .init(name: "again")).ok.body.json.message == "Hello, again!")
        }
    }

    @Test("A download streams as chunks in order; a response cut mid-body ends its iteration with NetworkError.transport")
    func streamedDownloadAndACutBody() async throws {
        try await withOpenAPIServer { server in
            let client = server.client(makeManager())
            let body = try await client.downloadBytes(query: .init(count: 5_000_000)).ok.body.binary
            #expect(body.length == .known(5_000_000))
            #expect(body.iterationBehavior == .single)
            var received = 0
            var inOrder = true
            var chunks = 0
            for try await chunk in body {
                if chunk.first != UInt8(received % 251) { inOrder = false }
                received += chunk.count
                chunks += 1
            }
            #expect(received == 5_000_000 && inOrder)
            #expect(chunks > 1, "the body arrived in one piece: not streamed")

            let cut = try await client.downloadBytes(query: .init(count: 5_000_000, cutAfter: 100_000)).ok.body.binary
            var got = 0
            do {
                for try await chunk in cut { got += chunk.count }
                Issue.record("a cut body ended without an error after \(got) bytes")
            } catch let error as NetworkError {
                #expect(error.caseName == "transport", "\(error)")
                #expect(got <= 100_000)
            }
        }
    }

    @Test("A small answer, its end come with its head, is handed over whole: known length, read again at will; its end still reaches the log and the middlewares")
    func wholeSmallAnswer() async throws {
        try await withOpenAPIServer { server in
            let log = LogCollector()
            let net = makeManager(log: log)
            let ends = CallRecorder<ResponseBodyEnd>()
            net.middlewares = [ClosureMiddleware { request, next throws(NetworkError) in
                let response = try await next(request)
                response.onBodyEnd { ends.record($0) }
                return response
            }]
            let transport = NetworkLayerTransport(provider: server.provider(), manager: net)
            let (head, body) = try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/greet?name=Ada"),
                                                        body: nil, baseURL: server.serverURL(), operationID: "getGreeting")
            #expect(head.status.code == 200)
            let whole = try #require(body)
            let text = try await String(collecting: whole, upTo: 1 << 20)
            #expect(text.contains("Hello, Ada!"))
            #expect(whole.length == .known(Int64(text.utf8.count)))
            // Bytes in memory: a second reading gives them again (a stream would be read once).
            #expect(whole.iterationBehavior == .multiple)
            #expect(try await String(collecting: whole, upTo: 1 << 20) == text)
            let ended = await ends.waitForCalls(count: 1, settle: .zero)
            #expect(ended.first?.byteCount == Int64(text.utf8.count))
            #expect(ended.first.map { $0.error == nil } == true)
            #expect(log.text.contains("ended after") && log.text.contains("\(text.utf8.count) bytes, finished"), "\(log.text)")
        }
    }

    @Test("A body's length as its head states it: Content-Length sent once, in digits, and no Content-Encoding",
          arguments: [
            ([("Content-Length", "1234")], HTTPBody.Length.known(1234)),
            ([("Content-Length", "0")], .known(0)),
            ([("Content-Length", "12"), ("Content-Length", "12")], .unknown),
            ([("Content-Length", "12"), ("Content-Encoding", "gzip")], .unknown),
            ([("Content-Encoding", "br"), ("Content-Length", "12")], .unknown),
            ([("Content-Length", "+12")], .unknown),
            ([("Content-Length", "12a")], .unknown),
            ([("Content-Length", "")], .unknown),
            ([("Content-Length", "9999999999999999999")], .unknown),
            ([("Content-Type", "text/plain")], .unknown),
          ])
    func statedLength(_ lines: [(String, String)], _ expected: HTTPBody.Length) {
        var length = BodyLength()
        for (name, value) in lines {
            var value = value
            value.withUTF8 { length.note(HTTPField.Name(name)!, $0) }
        }
        #expect(length.value == expected, "\(lines)")
    }

    @Test("A header name received as HTTPTypes spells it comes from the table; any other spelling is checked as it came")
    func commonHeaderNames() {
        func name(_ text: String) -> HTTPField.Name? {
            var text = text
            return text.withUTF8 { NetworkLayerTransport.commonName($0) }
        }
        #expect(name("Content-Type") == .contentType)
        #expect(name("Content-Type")?.rawName == "Content-Type")
        #expect(name("ETag")?.rawName == "ETag")
        #expect(name("content-type") == nil)
        #expect(name("Content-Typ") == nil)
        #expect(name("X-Custom") == nil)
        #expect(name("") == nil)
    }

    @Test("One transport follows its serverURL as it changes: each new one is checked, a bad one refused, a good one used again")
    func serverURLChecksFollowChanges() async throws {
        try await withOpenAPIServer { server in
            let transport = NetworkLayerTransport(provider: server.provider(), manager: makeManager())
            let greet = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/greet?name=Ada")
            func status(_ baseURL: URL) async throws -> Int {
                try await transport.send(greet, body: nil, baseURL: baseURL, operationID: "getGreeting").0.status.code
            }
            #expect(try await status(server.serverURL()) == 200)
            do {
                _ = try await status(URL(string: "ftp://127.0.0.1:\(server.port)")!)
                Issue.record("an ftp serverURL was used")
            } catch let error as NetworkError {
                #expect(error.caseName == "invalidRequest", "\(error)")
            }
            #expect(try await status(server.serverURL()) == 200)
            // Another good server (a path that does not exist there): its own path, not the last one's.
            #expect(try await status(URL(string: "http://127.0.0.1:\(server.port)/elsewhere/")!) == 404)
            #expect(try await status(server.serverURL()) == 200)
        }
    }

    @Test("A server that sends a body with its HEAD answer: the head arrives without a body, never a crash, and the manager goes on")
    func headWithABody() async throws {
        try await withOpenAPIServer { server in
            let client = server.client(makeManager())
            let output = try await client.checkBytes(query: .init(count: 10, misbehave: true))
            guard case .ok = output else { Issue.record("got \(output)"); return }
            let transport = NetworkLayerTransport(provider: server.provider(), manager: makeManager())
            // libcurl 7.88 may put the connection back with the stray body bytes still in it: the
            // next request on it (a HEAD too) then fails with a clear transport error, and the
            // connection is dropped.
            for _ in 0..<3 {
                do {
                    let (head, body) = try await transport.send(
                        HTTPRequest(method: .head, scheme: nil, authority: nil, path: "/bytes?count=10&misbehave=true"),
                        body: nil, baseURL: server.serverURL(), operationID: "checkBytes")
                    #expect(head.status.code == 200 && body == nil)
                } catch let error as NetworkError {
                    #expect(error.caseName == "transport", "\(error)")
                    #expect(error.recoverySuggestion?.isEmpty == false)
                }
            }
            var answered = false
            for _ in 0..<3 where !answered {
                answered = (try? await client.getGreeting(query: .init(name: "then")).ok.body.json.message) == "Hello, then!"
            }
            #expect(answered, "the manager did not recover from the HEAD's stray body")
        }
    }

    @Test("10,000 response headers: the call ends with the headers or a clear error, never a crash")
    func tenThousandHeaders() async throws {
        try await withOpenAPIServer { server in
            let client = server.client(makeManager())
            do {
                let output = try await client.manyHeaders(query: .init(count: 10_000))
                guard case .ok(let ok) = output else { Issue.record("got \(output)"); return }
                #expect(try ok.body.json.message == "10000 headers")
            } catch let error as ClientError {
                let cause = try #require(error.underlyingError as? NetworkError)
                #expect(cause.errorDescription?.isEmpty == false)
            }
            #expect(try await client.getGreeting(query: .init(name: "next")).ok.body.json.message == "Hello, next!")
        }
    }

    @Test("70,000 empty header lines, more than HTTPTypes holds and fewer bytes than libcurl's limit: a clear error, never a crash")
    func moreHeaderLinesThanHTTPTypesHolds() async throws {
        try await withOpenAPIServer { server in
            let client = server.client(makeManager())
            do {
                let output = try await client.manyHeaders(query: .init(count: 70_000))
                Issue.record("70,000 header lines converted: \(output)")
            } catch let error as ClientError {
                let cause = try #require(error.underlyingError as? NetworkError)
                #expect(cause.errorDescription?.contains("more than 65534 header lines") == true, "\(cause)")
            }
            #expect(try await client.getGreeting(query: .init(name: "next")).ok.body.json.message == "Hello, next!")
        }
    }

    @Test("Server-sent events arrive through the runtime's decoder as the server sends them")
    func serverSentEvents() async throws {
        try await withOpenAPIServer { server in
            let events = try await server.client(makeManager()).streamEvents(query: .init(count: 3)).ok.body.textEventStream
            var seen: [String] = []
            for try await event in events.asDecodedServerSentEvents() {
                seen.append("\(event.event ?? "") \(event.data ?? "")")
            }
            #expect(seen == [#"tick {"n": 0}"#, #"tick {"n": 1}"#, #"tick {"n": 2}"#])
        }
    }

    @Test("operationID names the call in the log line, the log entries and TracingMiddleware's span")
    func operationIDInTheLogAndTheSpan() async throws {
        try await withOpenAPIServer { server in
            let log = LogCollector()
            let entries = LogEntryCollector()
            let net = makeManager(log: log, entries: entries)
            let tracer = InMemoryTracer()
            net.middlewares = [TracingMiddleware(tracer: tracer)]
            _ = try await server.client(net).getGreeting(query: .init(name: "Ada")).ok.body.json
            #expect(log.text.contains("getGreeting] → GET http://127.0.0.1:\(server.port)/greet?name=Ada"), "\(log.text)")
            #expect(!entries.all.isEmpty)
            #expect(entries.all.allSatisfy { $0.operationID == "getGreeting" })
            #expect(entries.all.first?.description.hasPrefix("[NetworkLayer #") == true)
            #expect(entries.all.first?.description.contains(" getGreeting] ") == true)
            let span = try #require(tracer.finishedSpans.first)
            #expect(span.string("networklayer.operation.id") == "getGreeting")
        }
    }

    @Test("Cancelling the task awaiting the call stops the transfer at once", .measuring)
    func cancellationStopsTheTransfer() async throws {
        try await withOpenAPIServer { server in
            let slow = Task { () async throws -> Void in
                // /slow answers after 30 s; nothing in the document names it: an undocumented path of the same server.
                let transport = NetworkLayerTransport(provider: server.provider(), manager: makeManager())
                _ = try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/slow"),
                                             body: nil, baseURL: server.serverURL(), operationID: "slow")
            }
            try await Task.sleep(for: .milliseconds(300))
            let cancelled = ContinuousClock.now
            slow.cancel()
            let result = await slow.result
            let elapsed = ContinuousClock.now - cancelled
            guard case .failure(let error as NetworkError) = result else { Issue.record("got \(result)"); return }
            #expect(error.caseName == "cancelled")
            #expect(elapsed < .milliseconds(500), "the call ended \(elapsed) after its task was cancelled")
        }
    }

    @Test("Cancelling the task reading a streamed download stops it at once", .measuring)
    func cancellationStopsADownload() async throws {
        try await withOpenAPIServer { server in
            let client = server.client(makeManager())
            let started = AsyncStream.makeStream(of: Void.self)
            let reader = Task { () async throws -> Int in
                let body = try await client.downloadBytes(query: .init(count: 1 << 30)).ok.body.binary
                var received = 0
                for try await chunk in body {
                    if received == 0 { started.continuation.yield() }
                    received += chunk.count
                    try await Task.sleep(for: .milliseconds(1))
                }
                return received
            }
            for await _ in started.stream { break }
            let cancelled = ContinuousClock.now
            reader.cancel()
            let result = await reader.result
            let elapsed = ContinuousClock.now - cancelled
            if case .success(let received) = result { Issue.record("the download finished: \(received) bytes") }
            #expect(elapsed < .milliseconds(500), "the download ended \(elapsed) after its task was cancelled")
        }
    }
}

/// openapi_server.py's origin, its `/greet` answers scripted by the `X-Script` header, and the policies under test.
private struct ScriptedProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var script: String
    var retryPolicy: RetryPolicy?
    var redirectPolicy: RedirectPolicy?
    var timeouts: Timeouts?
    func createHTTPHeaders() -> [String: String] { ["X-Script": script] }
}

@Suite("NetworkLayerOpenAPI: mocks by operation ID", .sharing)
struct OpenAPIMockTests {
    private func client(_ net: NetworkManager) -> Client {
        Client(serverURL: URL(string: "https://notes.example.com/v1")!,
               transport: NetworkLayerTransport(provider: TestProvider(host: "notes.example.com", httpScheme: .https), manager: net))
    }

    @Test("MockResponses/<operationID>.json answers, with its sidecar's status and headers; the recorded request names the operation")
    func mockFileByOperationID() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("getGreeting", body: #"{"message": "from the file"}"#)
        try mocks.write("brewCoffee", body: #"{"error": "teapot"}"#, sidecar: #"{"statusCode": 418, "headers": {"X-Pot": "tea"}}"#)
        let net = makeManager(mocks: mocks.url)
        let client = client(net)
        #expect(try await client.getGreeting(query: .init(name: "Ada")).ok.body.json.message == "from the file")
        guard case .undocumented(418, let payload) = try await client.brewCoffee() else { Issue.record("no 418"); return }
        #expect(payload.headerFields[HTTPField.Name("X-Pot")!] == "tea")
        #expect(net.mocks.requests.map(\.operationID) == ["getGreeting", "brewCoffee"])
        #expect(net.mocks.requests.first?.url.absoluteString == "https://notes.example.com/v1/greet?name=Ada")
    }

    @Test("Net.mocks.register(operationID:) answers in code, before the file; a sequence moves on")
    func mockInCodeByOperationID() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("getGreeting", body: #"{"message": "from the file"}"#)
        let net = makeManager(mocks: mocks.url)
        net.mocks.register(operationID: "getGreeting", [.json(["message": "first"]), .json(["message": "then"])])
        net.mocks.register(operationID: "getNote") { request in
            request.url.lastPathComponent == "5" ? .json(Components.Schemas.Note(id: 5, text: "five")) : .status(410)
        }
        let client = client(net)
        #expect(try await client.getGreeting().ok.body.json.message == "first")
        #expect(try await client.getGreeting().ok.body.json.message == "then")
        #expect(try await client.getGreeting().ok.body.json.message == "then")
        #expect(try await client.getNote(path: .init(noteID: 5)).ok.body.json.text == "five")
        guard case .undocumented(410, _) = try await client.getNote(path: .init(noteID: 6)) else { Issue.record("no 410"); return }
    }

    @Test("What HTTPTypes cannot hold never traps: a mock's status 1000 is a ClientError wrapping invalidRequest; an invalid header name is left out, a value's control characters become spaces")
    func valuesHTTPTypesCannotHold() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        let net = makeManager(mocks: mocks.url)
        net.mocks.register(operationID: "whoami", .status(1000))
        net.mocks.register(operationID: "brewCoffee", .data(Data("{}".utf8), status: 418,
                                                            headerFields: [("Bad Name", "x"), ("X-Ok", "a\u{1}b\r\nInjected: 1"), ("X-Ok", "second")]))
        let client = client(net)
        let (_, cause) = try #require(await clientError { try await client.whoami() })
        #expect(cause?.caseName == "invalidRequest", "\(String(describing: cause))")
        #expect(cause?.errorDescription?.contains("1000") == true)
        guard case .undocumented(418, let payload) = try await client.brewCoffee() else { Issue.record("no 418"); return }
        let name = HTTPField.Name("X-Ok")!
        #expect(payload.headerFields[values: name] == ["a b  Injected: 1", "second"])
        #expect(payload.headerFields[HTTPField.Name("Injected")!] == nil)
        #expect(!payload.headerFields.contains { $0.name.rawName.contains(" ") })
    }

    @Test("No mock for an operation: mockNotFound names the operation among the places looked")
    func noMock() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        let (_, cause) = try #require(await clientError { try await client(makeManager(mocks: mocks.url)).whoami() })
        guard case .mockNotFound(let places)? = cause else { Issue.record("got \(String(describing: cause))"); return }
        #expect(places.contains("/whoami.bin (or any other extension)"))
        #expect(places.contains("operation whoami"))
    }
}

@Suite("NetworkLayerOpenAPI: TLS", .sharing)
struct OpenAPITLSTests {
    private static var localhost: (certificate: URL, key: URL) {
        (certificatesDirectory.appendingPathComponent("localhost-chain.pem"), certificatesDirectory.appendingPathComponent("localhost.key"))
    }

    @Test("Pins of the server's key pass; pins of another key refuse the server with a ClientError wrapping invalidCertificate")
    func pins() async throws {
        try await withOpenAPIServer(tls: Self.localhost) { server in
            let net = makeTLSManager()
            try net.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "localhost.pem")])], isEnabled: true)
            #expect(try await server.client(net, host: "localhost").getGreeting(query: .init(name: "pinned")).ok.body.json.message
                    == "Hello, pinned!")

            let wrong = makeTLSManager()
            try wrong.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "unrelated.pem")])], isEnabled: true)
            let (_, cause) = try #require(await clientError {
                try await server.client(wrong, host: "localhost").createNote(body: .json(.init(text: "secret note")))
            })
            #expect(cause?.caseName == "invalidCertificate", "\(String(describing: cause))")
            #expect(cause?.errorDescription?.contains(try pin(of: "localhost.pem")) == true)
        }
    }

    @Test("Mutual TLS: the provider's client certificate is presented; without one the server refuses the call")
    func mutualTLS() async throws {
        let files = try await ClientCertificateFiles.shared()
        try await withOpenAPIServer(tls: (files.url("server.pem"), files.url("server.key")), clientCA: files.url("ca.pem")) { server in
            let net = makeMTLSManager(files)
            let transport = NetworkLayerTransport(provider: server.provider(files.clientA), manager: net)
            let caller = try await Client(serverURL: server.serverURL(), transport: transport).whoami().ok.body.json
            #expect(caller.clientCertificate == "client-a")

            let (_, cause) = try #require(await clientError {
                try await Client(serverURL: server.serverURL(), transport: NetworkLayerTransport(provider: server.provider(nil), manager: net)).whoami()
            })
            #expect(cause != nil, "the refusal is not a NetworkError")
        }
    }
}

@Suite("NetworkLayerOpenAPI: streamed download memory", .sharing)
struct OpenAPIDownloadMemoryTests {
    @Test("1 GB through the transport to a slow reader keeps the process under 64 MB")
    func oneGigabyteStaysFlat() async throws {
        try await withOpenAPIServer { server in
            let measurement = try await OpenAPIMemoryProbe.measure(port: server.port, bytes: 1 << 30)
            #expect(measurement.bytes == 1 << 30)
            #expect(measurement.inOrder)
            #expect(measurement.peak < 64 << 20, "peak resident size \(measurement.peak >> 20) MB")
            // A floor, so that a probe that measured nothing cannot pass: the runtime alone is several MB.
            #expect(measurement.peak > 4 << 20, "implausible peak \(measurement.peak) bytes")
        }
    }
}

extension OpenAPIServer {
    /// A provider presenting `certificate` to this (TLS) server.
    func provider(_ certificate: ClientCertificate?) -> MTLSProvider {
        MTLSProvider(host: "127.0.0.1", port: port, clientCertificate: certificate)
    }
}

/// The `OpenAPIMemoryProbe` executable: one download through the transport in a process of its own.
enum OpenAPIMemoryProbe {
    static let probe = ProbeProcess(name: "OpenAPIMemoryProbe", deadline: .seconds(300))

    static func measure(port: Int, bytes: Int) async throws -> StreamMemoryProbe.Measurement {
        try await probe.run([String(port), String(bytes)])
    }
}
#endif
